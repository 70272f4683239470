import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ALL_PROVIDERS, callerKey, DECOY_ENV_KEYS, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const PERSONA = {
  name: 'Acme Support',
  attributes: { tone: 'warm and direct', avoid: ['synergy'], favouriteColour: 'teal', nested: { level: { deep: 'value-42' } } },
};
const CONTENT = 'Your refund of $42.10 was processed on 2026-11-02. See https://acme.example/r/9 for details.';

function authHeaderSeen(provider: string, headers: Record<string, unknown>): unknown {
  if (provider === 'anthropic') return headers['x-api-key'];
  if (provider === 'google') return headers['x-goog-api-key'];
  return headers.authorization;
}

describe('POST /v1/refine', () => {
  let f: RefineFixture;
  let personaId: string;
  const refine = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    f.server.request('/v1/refine', { method: 'POST', json: body, headers });

  beforeAll(async () => {
    f = await startRefineFixture();
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: PERSONA })).json()).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  describe.each(ALL_PROVIDERS)('through %s', (provider) => {
    const call = (model?: string) =>
      refine({ provider, providerApiKey: callerKey(provider), personaId, content: CONTENT, ...(model ? { model } : {}) });

    it('round-trips: exactly { response }, Server-Timing, the caller\'s key and the persona reach the provider', async () => {
      f.fake.setBehaviour({ mode: 'ok', reply: '  "Good news: your $42.10 refund is on its way."  ' });
      const res = await call();
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ response: 'Good news: your $42.10 refund is on its way.' });
      expect(res.headers.get('server-timing')).toMatch(/^provider;dur=\d+(\.\d+)?, total;dur=\d+(\.\d+)?$/);
      const [seen] = f.fake.requests;
      expect(seen!.provider).toBe(provider);
      const auth = authHeaderSeen(provider, seen!.headers);
      expect(auth === callerKey(provider) || auth === `Bearer ${callerKey(provider)}`).toBe(true);
      const sent = JSON.stringify(seen!.body);
      for (const decoy of Object.values(DECOY_ENV_KEYS)) expect(JSON.stringify(seen!.headers) + sent).not.toContain(decoy);
      for (const fragment of ['Acme Support', 'warm and direct', 'synergy', 'favouriteColour', 'teal', 'value-42']) {
        expect(sent).toContain(fragment);
      }
      expect(seen!.userText).toContain(CONTENT);
      expect(seen!.userText).toMatch(/<text-to-rewrite[^>]*>\n[\s\S]*\n<\/text-to-rewrite[^>]*>/);
    });

    it('passes a model override to the provider', async () => {
      const res = await call('custom-model-1');
      expect(res.status).toBe(200);
      expect(f.fake.requests[0]!.model).toBe('custom-model-1');
    });

    const failures: [string, number, RegExp][] = [
      ['rejectKey', 400, new RegExp(`^provider "${provider}" rejected providerApiKey \\(HTTP 40[0-3]\\)$`)],
      ['badRequest', 400, new RegExp(`^provider "${provider}" rejected the request \\(HTTP 400\\)`)],
      ['rateLimit', 429, new RegExp(`^provider "${provider}" `)],
      ['serverError', 502, new RegExp(`^provider "${provider}" `)],
      ['overloaded', 502, new RegExp(`^provider "${provider}" `)],
      ['garbage', 502, new RegExp(`^provider "${provider}" `)],
      ['malformed', 502, new RegExp(`^provider "${provider}" `)],
      ['reset', 502, new RegExp(`^provider "${provider}" `)],
      ['hang', 504, new RegExp(`^provider "${provider}" did not answer within \\d+ ms$`)],
      ['stallBody', 504, new RegExp(`^provider "${provider}" did not answer within \\d+ ms$`)],
    ];
    it.concurrent.each(failures)('%s → %i from the provider, key scrubbed', async (mode, status, message) => {
      const started = Date.now();
      const res = await call(`fake-${mode}`);
      expect(res.status).toBe(status);
      expect(res.headers.get('x-error-source')).toBe('provider');
      const body = await res.json();
      expect(Object.keys(body).sort()).toEqual(['error', 'message']);
      expect(body.error).toBe(status);
      expect(body.message).toMatch(message);
      for (let i = 0; i + 6 <= callerKey(provider).length; i++) expect(body.message).not.toContain(callerKey(provider).slice(i, i + 6));
      if (status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      if (status === 504) expect(Date.now() - started).toBeLessThan(1500 + 1000);
    });
  });

  describe('validation: nothing reaches a provider', () => {
    const valid = () => ({ provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'hello' });
    const cases: [string, () => Record<string, unknown>, number, RegExp][] = [
      ['an unknown provider', () => ({ ...valid(), provider: 'skynet' }), 400, /unknown provider "skynet"; supported: openai, anthropic, google, mistral, groq, deepseek, xai, localllm, rules/],
      ['a base URL field', () => ({ ...valid(), baseUrl: 'http://169.254.169.254/' }), 400, /unknown field "baseUrl"/],
      ['a missing content', () => { const { content: _c, ...rest } = valid(); return rest; }, 400, /content is required/],
      ['an empty content', () => ({ ...valid(), content: '' }), 400, /content must not be empty/],
      ['a content over 100,000 characters', () => ({ ...valid(), content: 'a'.repeat(100_001) }), 400, /content must be at most 100000 characters/],
      ['a missing providerApiKey', () => { const { providerApiKey: _k, ...rest } = valid(); return rest; }, 400, /providerApiKey is required/],
      ['a providerApiKey over 4096 characters', () => ({ ...valid(), providerApiKey: 'k'.repeat(4097) }), 400, /providerApiKey must be at most 4096/],
      ['a non-string model', () => ({ ...valid(), model: 7 }), 400, /model must be a string/],
      ['an unknown persona', () => ({ ...valid(), personaId: '01a20097-9207-7000-9c41-72893e6c0112' }), 404, /persona "01a20097-9207-7000-9c41-72893e6c0112" not found/],
    ];
    it.each(cases)('%s → %i', async (_label, body, status, message) => {
      const res = await refine(body());
      expect(res.status).toBe(status);
      expect(res.headers.get('x-error-source')).toBeNull();
      expect((await res.json()).message).toMatch(message);
      expect(f.fake.requestCount).toBe(0);
    });

    it('another account\'s persona → 404', async () => {
      const otherKey = await f.server.createAccount('refine-other');
      const res = await f.server.request('/v1/refine', { method: 'POST', json: valid(), key: otherKey });
      expect(res.status).toBe(404);
      expect(f.fake.requestCount).toBe(0);
    });
  });

  it('a provider 429 asking for longer than the remaining budget is answered at once, keeping Retry-After', async () => {
    f.fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 7 });
    const started = Date.now();
    const res = await refine({ provider: 'anthropic', providerApiKey: callerKey('anthropic'), personaId, content: 'hi' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(f.fake.requestCount).toBe(1);
  });

  it('retries a retryable failure inside the budget and then succeeds', async () => {
    f.fake.enqueue('serverError');
    f.fake.setBehaviour({ mode: 'ok', reply: 'second time lucky' });
    const res = await refine({ provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'hi' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: 'second time lucky' });
    expect(f.fake.requestCount).toBe(2);
  });

  it('aborts the provider call when the client disconnects', async () => {
    f.fake.setBehaviour('hang');
    const controller = new AbortController();
    const pending = f.server
      .request('/v1/refine', {
        method: 'POST',
        json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'hi' },
        signal: controller.signal,
      })
      .catch(() => undefined);
    const [seen] = await f.fake.waitForRequests(1);
    controller.abort();
    await pending;
    await f.fake.waitForClientClose(seen!);
    expect(seen!.clientClosed).toBe(true);
  });

  it('counts and logs a client that went away as 499, not as a bad request or an error', async () => {
    const counted = async (name: string, labels: string) => {
      const line = (await (await f.server.request('/metrics')).text()).split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
      return line === undefined ? 0 : Number(line.split(' ')[1]);
    };
    const refines = (status: number) => counted('http_requests_total', `method="POST",route="/v1/refine",status="${status}"`);
    const [before499, before400, beforeCalls] = [await refines(499), await refines(400), await counted('provider_calls_total', 'provider="openai",outcome="client_closed_request"')];
    f.fake.setBehaviour('hang');
    const controller = new AbortController();
    const pending = f.server
      .request('/v1/refine', {
        method: 'POST',
        json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'hi' },
        headers: { 'x-request-id': 'client-goes-away-1' },
        signal: controller.signal,
      })
      .catch(() => undefined);
    await f.fake.waitForRequests(1);
    controller.abort();
    await pending;
    const ours = () => f.server.logs.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'client-goes-away-1');
    await expect.poll(() => ours().filter((l) => 'statusCode' in l)).toMatchObject([{ statusCode: 499, level: 30 }]);
    expect(ours().filter((l) => l.level >= 40)).toEqual([]);
    expect(await refines(499)).toBe(before499 + 1);
    expect(await refines(400)).toBe(before400);
    expect(await counted('provider_calls_total', 'provider="openai",outcome="client_closed_request"')).toBe(beforeCalls + 1);
  });

  it('answers 200 concurrent refines against a provider taking 200 ms', async () => {
    f.fake.setLatency(200);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        refine({ provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: `message ${i}` }),
      ),
    );
    f.fake.setLatency(0);
    expect(results.map((r) => r.status)).toEqual(Array(200).fill(200));
  });
});
