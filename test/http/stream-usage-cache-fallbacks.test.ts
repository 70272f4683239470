import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeTokenCounts } from '../fakes/provider-wire-formats.js';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const FALLBACK_KEY = 'sk-ant-stream-fallback-Wm3Jd8Kq1Tz6Bv4';

describe('a streamed refine: usage in done, the cache replayed as a stream, fallbacks before the first delta', () => {
  let f: RefineFixture;
  let personaId: string;
  const refine = (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    f.server.request('/v1/refine', {
      method: 'POST', headers,
      json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'The help desk moved.', stream: true, ...extra },
    });
  const done = (text: string) => parseEventStream(text).find((event) => event.event === 'done')?.data;

  beforeAll(async () => {
    f = await startRefineFixture();
  });
  afterAll(() => f.close());
  beforeEach(async () => {
    f.fake.reset();
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Streamed', attributes: { tone: 'warm' } } })).json()).id;
  });

  it('done.usage carries what X-Usage would: the reported tokens and the calls; X-Provider names who streams', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'The help desk has moved, friends.' });
    const res = await refine();
    expect(res.headers.get('x-provider')).toBe(`openai/${f.fake.requests[0]!.model}`);
    const { input, output } = fakeTokenCounts(f.fake.requests[0]!.userText, 'The help desk has moved, friends.');
    expect(done(await res.text())?.usage).toEqual({ inputTokens: input, outputTokens: output, providerCalls: 1 });
  });

  it('a cached answer is replayed as a stream: X-Cache HIT, Age, no provider call', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'The help desk has moved, friends.' });
    const miss = await refine({}, { 'cache-control': 'max-age=600' });
    expect(miss.headers.get('x-cache')).toBe('MISS');
    const missed = done(await miss.text());
    const hit = await refine({}, { 'cache-control': 'max-age=600' });
    expect(hit.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.headers.get('age')).toMatch(/^\d+$/);
    const events = parseEventStream(await hit.text());
    expect(events.map((e) => e.event)).toEqual(['delta', 'done']);
    expect(events[1]!.data).toEqual({ response: missed!.response, violations: {}, score: 100, usage: { inputTokens: 0, outputTokens: 0, providerCalls: 0 } });
    expect(f.fake.requestCount).toBe(1);
    // The answer a stream stored serves a whole-answer request too.
    const whole = await refine({ stream: false }, { 'cache-control': 'max-age=600' });
    expect(whole.headers.get('x-cache')).toBe('HIT');
    expect(await whole.json()).toEqual({ response: missed!.response });
  });

  it('falls back when the provider fails before its first text, and X-Provider names the fallback', async () => {
    f.fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 30 });
    const res = await refine({ fallbacks: [{ provider: 'anthropic', providerApiKey: FALLBACK_KEY, model: 'claude-stream' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-provider')).toBe('anthropic/claude-stream');
    const end = done(await res.text());
    expect(end?.usage).toMatchObject({ providerCalls: 2 });
    expect(f.fake.requests.map((r) => r.provider)).toEqual(['openai', 'anthropic']);
  });

  it('never falls back once the provider\'s text began: a failure mid-stream is the stream\'s error event', async () => {
    f.fake.enqueue({ mode: 'streamError', pieces: ['The help desk ', 'has moved to ', 'a new place, ', 'friends.'], failAfterPieces: 3 });
    const res = await refine({ fallbacks: [{ provider: 'anthropic', providerApiKey: FALLBACK_KEY }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-provider')).toMatch(/^openai\//);
    const events = parseEventStream(await res.text());
    expect(events.at(-1)!.event).toBe('error');
    expect(f.fake.requests.map((r) => r.provider)).toEqual(['openai']);
    expect(JSON.stringify(events)).not.toContain(FALLBACK_KEY.slice(0, 12));
  });
});
