/** POST /v1/refine with "stream": true, through the real server and the fake provider's real stream formats. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deltasOf, parseEventStream, readUntil } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';

const PERSONA = {
  name: 'Acme Support',
  attributes: {
    tone: 'warm and direct',
    vocabulary: { customers: 'members', 'help desk': 'support team' },
    casing: ['GitHub', 'Acme Cloud'],
    avoid: ['synergy'],
    signOff: 'Cheers,\nAcme',
  },
};
const CONTENT = 'Tell our customers the help desk moved to github.';
const REPLY = 'Our customers can reach the help desk on github now — café ☕ open 日本語 too, no synergy needed.';
const FORMATS = ['openai', 'groq', 'localllm', 'anthropic', 'google'];

describe('POST /v1/refine with "stream": true', () => {
  let f: RefineFixture;
  let personaId: string;
  const refine = (body: Record<string, unknown>, init: RequestInit = {}) =>
    f.server.request('/v1/refine', { method: 'POST', json: body, ...init });
  const body = (provider: string, extra: Record<string, unknown> = {}) => ({
    provider, providerApiKey: callerKey(provider), personaId, content: CONTENT, stream: true, ...extra,
  });

  beforeAll(async () => {
    f = await startRefineFixture();
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: PERSONA })).json()).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  describe.each(FORMATS)('through %s', (provider) => {
    it('streams deltas with the fixes applied in flight, then done with the non-streamed result', async () => {
      f.fake.setBehaviour({ mode: 'ok', reply: REPLY, pieceChars: 4 });
      const res = await refine(body(provider));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(res.headers.get('x-persona-version')).toBe('1');
      const events = parseEventStream(await res.text());
      const deltas = deltasOf(events);
      expect(deltas.length).toBeGreaterThan(1);
      for (const delta of deltas) expect(delta).not.toMatch(/customers|help desk|github/);
      const last = events.at(-1)!;
      expect(events.filter((e) => e.event !== 'delta')).toEqual([last]);
      expect(last.event).toBe('done');
      expect(last.data.response).toBe(deltas.join(''));

      // The same provider answer without streaming: equal, apart from the repair call a stream does not make.
      f.fake.reset();
      f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
      const plain = await refine({ ...body(provider), stream: false });
      expect((await plain.json()).response).toBe(last.data.response);
      expect(plain.headers.get('x-persona-violations')).toBe('avoid=1');
      expect(last.data.violations).toEqual({ avoid: 1 });
      expect(last.data.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number), providerCalls: 1 });
      expect(String(last.data.response)).toMatch(/members .* support team on GitHub .*\n\nCheers,\nAcme$/s);
    });

    it('a provider error mid-stream ends it with one error event: the status and message it gets without streaming', async () => {
      f.fake.setBehaviour({ mode: 'streamError', reply: REPLY, failAfterPieces: 20 });
      const res = await refine(body(provider));
      expect(res.status).toBe(200);
      const events = parseEventStream(await res.text());
      expect(events.at(-1)).toEqual({
        event: 'error',
        data: { error: 502, message: expect.stringMatching(new RegExp(`^provider "${provider}" (failed|is overloaded) \\(HTTP 5\\d\\d\\): `)) },
      });
      expect(events.filter((e) => e.event !== 'delta')).toHaveLength(1);
      expect(secretFragmentsIn(JSON.stringify(events), callerKey(provider))).toEqual([]);
    });

    it('a connection cut mid-stream ends with a 502 error event, not a clean done', async () => {
      f.fake.setBehaviour({ mode: 'streamCut', reply: REPLY, failAfterPieces: 20 });
      const events = parseEventStream(await (await refine(body(provider))).text());
      expect(events.at(-1)).toEqual({
        event: 'error',
        data: { error: 502, message: `provider "${provider}" could not be reached (connection closed before the answer was complete)` },
      });
    });

    it('a stalled stream ends with a 504 error event at PROVIDER_TIMEOUT_MS', async () => {
      f.fake.setBehaviour({ mode: 'streamStall', reply: REPLY, failAfterPieces: 20 });
      const started = Date.now();
      const events = parseEventStream(await (await refine(body(provider))).text());
      expect(events.at(-1)).toEqual({ event: 'error', data: { error: 504, message: `provider "${provider}" did not answer within 1500 ms` } });
      expect(Date.now() - started).toBeLessThan(1500 + 1000);
    });

    it('a client that disconnects mid-stream aborts the provider stream', async () => {
      f.fake.setBehaviour({ mode: 'streamStall', reply: REPLY, failAfterPieces: 20 });
      const client = new AbortController();
      const res = await refine(body(provider), { signal: client.signal });
      await readUntil(res, (text) => text.includes('event: delta'));
      client.abort();
      await f.fake.waitForClientClose(f.fake.requests[0]!);
    });
  });

  describe('failures before the first text are JSON errors', () => {
    const expectJsonError = async (res: Response, status: number) => {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const answer = (await res.json()) as { error: number; message: string };
      expect(Object.keys(answer).sort()).toEqual(['error', 'message']);
      expect(answer.error).toBe(status);
      return answer.message;
    };

    it('invalid body (stream not a boolean): 400', async () => {
      await expectJsonError(await refine(body('openai', { stream: 'yes' })), 400);
    });
    it('no service key: 401', async () => {
      await expectJsonError(await f.server.request('/v1/refine', { method: 'POST', json: body('openai'), key: null }), 401);
    });
    it('unknown persona: 404', async () => {
      await expectJsonError(await refine(body('openai', { personaId: '0190b5c4-0000-7000-8000-000000000000' })), 404);
    });
    it('unknown provider: 400', async () => {
      await expectJsonError(await refine(body('nope')), 400);
    });
    it.each(FORMATS)('%s rejecting the key: 400 with X-Error-Source, key scrubbed', async (provider) => {
      f.fake.setBehaviour('rejectKey');
      const res = await refine(body(provider));
      expect(res.headers.get('x-error-source')).toBe('provider');
      const message = await expectJsonError(res, 400);
      expect(secretFragmentsIn(message, callerKey(provider))).toEqual([]);
    });
    it.each(FORMATS)('%s rate limiting before its first token: 429 with Retry-After', async (provider) => {
      f.fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 5 });
      const res = await refine(body(provider));
      expect(res.headers.get('retry-after')).toBe('5');
      await expectJsonError(res, 429);
    });
    it.each(FORMATS)('%s failing with 5xx before its first token: 502', async (provider) => {
      f.fake.setBehaviour('serverError');
      await expectJsonError(await refine(body(provider)), 502);
    });
  });

  it('reports avoid/maxWords in done.violations without a repair call', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Pure synergy for every customers.' });
    const events = parseEventStream(await (await refine(body('anthropic'))).text());
    expect(events.at(-1)!.data.violations).toEqual({ avoid: 1 });
    expect(f.fake.requestCount).toBe(1);
  });

  it('the rules provider streams the enforced text as one delta, then done', async () => {
    const res = await refine({ provider: 'rules', personaId, content: 'Our customers love github.', stream: true });
    const events = parseEventStream(await res.text());
    expect(events).toEqual([
      { event: 'delta', data: { text: 'Our members love GitHub.\n\nCheers,\nAcme' } },
      { event: 'done', data: { response: 'Our members love GitHub.\n\nCheers,\nAcme', violations: {}, score: 100, usage: { inputTokens: 0, outputTokens: 0, providerCalls: 0 } } },
    ]);
  });

  it('an Idempotency-Key replay returns the stored result as a stream (one delta, then done) without calling the provider', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const headers = { 'idempotency-key': `stream-${Date.now()}` };
    const first = parseEventStream(await (await refine(body('openai'), { headers })).text());
    expect(f.fake.requestCount).toBe(1);
    const again = await refine(body('openai'), { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(again.headers.get('x-persona-version')).toBe('1');
    const replayed = parseEventStream(await again.text());
    expect(replayed).toEqual([{ event: 'delta', data: { text: first.at(-1)!.data.response } }, first.at(-1)]);
    expect(f.fake.requestCount).toBe(1);
  });

  it('a failed stream frees its Idempotency-Key, so the retry runs', async () => {
    const headers = { 'idempotency-key': `stream-fail-${Date.now()}` };
    f.fake.setBehaviour({ mode: 'streamCut', reply: REPLY, failAfterPieces: 10 });
    expect(parseEventStream(await (await refine(body('groq'), { headers })).text()).at(-1)!.event).toBe('error');
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    expect(parseEventStream(await (await refine(body('groq'), { headers })).text()).at(-1)!.event).toBe('done');
    expect(f.fake.requestCount).toBe(2);
  });

  it('a provider error event echoing the key mid-stream reaches the client scrubbed of every fragment', async () => {
    for (const provider of FORMATS) {
      f.fake.setBehaviour({ mode: 'streamError', reply: REPLY, failAfterPieces: 20, message: `bad key ${callerKey(provider)} (${callerKey(provider).slice(-8)})` });
      const text = await (await refine(body(provider))).text();
      const last = parseEventStream(text).at(-1)!;
      expect(last.event).toBe('error');
      expect(String(last.data.message)).toContain('bad key');
      expect(secretFragmentsIn(text, callerKey(provider))).toEqual([]);
    }
  });

  it('counts a stream as a refine in the metrics', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    await (await refine(body('google'))).text();
    const metrics = await (await f.server.request('/metrics')).text();
    expect(metrics).toMatch(/provider_calls_total\{provider="google",outcome="ok"\} [1-9]/);
  });
});

describe('streams and the per-account refine cap', () => {
  it('a stream holds its slot until it ends: a third refine is refused with 429 while two stream', async () => {
    const f = await startRefineFixture({ env: { MAX_CONCURRENT_REFINES_PER_ACCOUNT: '2', PROVIDER_TIMEOUT_MS: '4000' } });
    try {
      const personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Cap' } })).json()).id;
      // Streams that stall after their first pieces stay open until the 4 s deadline.
      f.fake.setBehaviour({ mode: 'streamStall', reply: REPLY, failAfterPieces: 3 });
      const stream = { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'x', stream: true };
      const streams = await Promise.all([0, 1].map(() => f.server.request('/v1/refine', { method: 'POST', json: stream })));
      expect(streams.map((r) => r.status)).toEqual([200, 200]);
      const third = await f.server.request('/v1/refine', { method: 'POST', json: { ...stream, stream: false } });
      expect(third.status).toBe(429);
      for (const res of streams) expect(parseEventStream(await res.text()).at(-1)!.data.error).toBe(504);
      f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
      const after = await f.server.request('/v1/refine', { method: 'POST', json: stream });
      expect(parseEventStream(await after.text()).at(-1)!.event).toBe('done');
    } finally {
      await f.close();
    }
  });
});
