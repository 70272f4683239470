import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeTokenCounts } from '../fakes/provider-wire-formats.js';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

/** Distinctive keys, so any echo of them anywhere can be found. */
const PRIMARY_KEY = 'sk-primary-Hq2Zx9Lm4Vb8Nc1Pw7Rt5Ys3';
const FALLBACK_KEY = 'sk-fallback-Wm3Jd8Kq1Tz6Bv4Xn9Lp2';
const SECOND_FALLBACK_KEY = 'gk-FAKE-second-fallback-key-Fq7Rc2';

/** A fixture whose provider deadline is `timeoutMs`, with a persona to refine with. */
function fallbackFixture(timeoutMs: number) {
  const context = { f: undefined as unknown as RefineFixture, personaId: '' };
  beforeAll(async () => {
    context.f = await startRefineFixture({ env: { LOG_LEVEL: 'trace', PROVIDER_TIMEOUT_MS: String(timeoutMs) } });
    context.personaId = (await (await context.f.server.request('/v1/personas', { method: 'POST', json: { name: 'Fallback', attributes: { tone: 'plain' } } })).json()).id;
  });
  afterAll(() => context.f.close());
  beforeEach(() => context.f.fake.reset());
  const refine = (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    context.f.server.request('/v1/refine', {
      method: 'POST',
      headers,
      json: {
        provider: 'openai', providerApiKey: PRIMARY_KEY, personaId: context.personaId, content: 'The export finished with 3 warnings.',
        fallbacks: [{ provider: 'anthropic', providerApiKey: FALLBACK_KEY, model: 'claude-test' }],
        ...extra,
      },
    });
  return { context, refine };
}

describe('fallbacks with the caller\'s own keys', () => {
  // A deadline no loaded machine reaches: these tests count calls and read answers, not times.
  const { context, refine } = fallbackFixture(30_000);
  let f: RefineFixture;
  beforeAll(() => {
    f = context.f;
  });

  it("persona_refine_provider_call_duration_seconds records each provider's own time, not the whole refine's", async () => {
    f.fake.enqueue({ mode: 'serverError' }, { mode: 'slow', delayMs: 800 });
    for (const stream of [false, true]) {
      const res = await refine({ content: `metrics ${stream}`, stream });
      expect(res.status).toBe(200);
      await res.text();
      if (!stream) f.fake.enqueue({ mode: 'serverError' }, { mode: 'slow', delayMs: 800 });
    }
    const metrics = await (await fetch(`${f.server.url}/metrics`)).text();
    const seconds = (provider: string, outcome: string) => {
      const labels = `outcome="${outcome}",provider="${provider}"`;
      const sum = new RegExp(`persona_refine_provider_call_duration_seconds_sum\\{(?:${labels}|provider="${provider}",outcome="${outcome}")\\} ([0-9.e-]+)`).exec(metrics);
      return Number(sum?.[1]);
    };
    // Two refines: the fallback took its 800 ms each time; the failing primary answered at once, and
    // charged with the whole refine's time it would have had at least as much.
    expect(seconds('anthropic', 'ok')).toBeGreaterThanOrEqual(1.55);
    expect(seconds('openai', 'provider_failed')).toBeLessThan(0.8);
  });

  it('429 from the provider → the fallback answers at once, with the same persona prompt, and X-Provider names it', async () => {
    f.fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 30 });
    const started = Date.now();
    const res = await refine();
    expect(res.status).toBe(200);
    // At once: not after the 30 s the provider asked for, nor after retries of it.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.headers.get('x-provider')).toBe('anthropic/claude-test');
    const [primary, fallback] = f.fake.requests;
    expect([primary!.provider, fallback!.provider]).toEqual(['openai', 'anthropic']);
    expect(f.fake.requestCount).toBe(2);
    // The persona's prompt goes unchanged to each provider.
    expect((fallback!.body as { system: string }).system).toBe((primary!.body as { instructions: string }).instructions);
    expect(fallback!.userText).toBe(primary!.userText);
    const { input, output } = fakeTokenCounts(fallback!.userText, `Rewritten: ${fallback!.userText}`);
    expect(res.headers.get('x-usage')).toBe(`input_tokens=${input}, output_tokens=${output}, provider_calls=2`);
  });

  it.each(['serverError', 'overloaded', 'reset'] as const)('falls back after %s', async (mode) => {
    f.fake.enqueue(mode);
    const res = await refine();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-provider')).toBe('anthropic/claude-test');
  });

  it('a primary that answers needs no fallback: X-Provider names it with its resolved model', async () => {
    const res = await refine({ model: 'gpt-test' });
    expect(res.headers.get('x-provider')).toBe('openai/gpt-test');
    expect(f.fake.requestCount).toBe(1);
  });

  it.each([
    ['rejectKey', 'provider "openai" rejected providerApiKey (HTTP 401)'],
    ['badRequest', 'provider "openai" rejected the request (HTTP 400)'],
  ] as const)('%s is the caller\'s to fix: answered as today, no fallback', async (mode, message) => {
    f.fake.enqueue(mode);
    const res = await refine();
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(new RegExp(`^${message.replace(/[()]/g, '\\$&')}`));
    expect(f.fake.requestCount).toBe(1);
  });

  it('all failing: the message reports each attempt in order, the status is the last one\'s', async () => {
    f.fake.enqueue({ mode: 'serverError' }, { mode: 'rateLimit', retryAfterSeconds: 30 }, { mode: 'overloaded' }, { mode: 'overloaded' }, { mode: 'overloaded' });
    const res = await refine({ fallbacks: [
      { provider: 'anthropic', providerApiKey: FALLBACK_KEY },
      { provider: 'google', providerApiKey: SECOND_FALLBACK_KEY },
    ] });
    expect(res.status).toBe(502);
    expect(res.headers.get('x-error-source')).toBe('provider');
    const { message } = await res.json();
    expect(message).toMatch(/^provider "openai" failed \(HTTP 500\): .+; then provider "anthropic" is rate limiting requests \(HTTP 429\): .+; then provider "google" failed \(HTTP 503\): .+$/);
  });

  it('a fallback that rejects its key ends the chain with that 400, after the earlier failures', async () => {
    f.fake.enqueue({ mode: 'serverError' }, { mode: 'rejectKey' });
    const res = await refine({ fallbacks: [
      { provider: 'deepseek', providerApiKey: FALLBACK_KEY },
      { provider: 'google', providerApiKey: SECOND_FALLBACK_KEY },
    ] });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/^provider "openai" failed \(HTTP 500\): .+; then provider "deepseek" rejected providerApiKey \(HTTP 401\)$/);
    expect(f.fake.requestCount).toBe(2);
  });

  it.each([
    [{ fallbacks: Array.from({ length: 4 }, () => ({ provider: 'anthropic', providerApiKey: FALLBACK_KEY })) }, 'fallbacks must have at most 3 items'],
    [{ fallbacks: [{ provider: 'anthropic' }] }, 'fallbacks.0.providerApiKey is required'],
    [{ fallbacks: [{ provider: 'anthropic', providerApiKey: FALLBACK_KEY, baseUrl: 'http://evil' }] }, 'unknown field "baseUrl" in fallbacks.0'],
    [{ fallbacks: [{ provider: 'nope', providerApiKey: FALLBACK_KEY }] }, /^unknown provider "nope"; supported: openai, /],
    [{ fallbacks: [{ provider: 'rules', providerApiKey: FALLBACK_KEY }] }, 'fallbacks.0.provider cannot be "rules": it is not a model provider'],
    [{ provider: 'rules' }, 'fallbacks need a provider that calls a model; "rules" cannot fail'],
  ])('bad fallbacks are a precise 400 before any provider call: %j', async (extra, message) => {
    const res = await refine(extra);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['error', 'message']);
    if (typeof message === 'string') expect(body.message).toBe(message);
    else expect(body.message).toMatch(message);
    expect(f.fake.requestCount).toBe(0);
  });

  it('fallback keys never leak: not in answers, logs, metrics, the database or stored idempotent answers', async () => {
    const seen: string[] = [];
    const keep = async (res: Response) => seen.push(JSON.stringify([...res.headers]) + (await res.text()));
    // Providers echo the key they rejected, in full or in part.
    f.fake.enqueue({ mode: 'serverError', message: `upstream failed for ${PRIMARY_KEY}` }, { mode: 'rejectKey', message: `Incorrect API key provided: ${FALLBACK_KEY}` });
    await keep(await refine({}, { 'idempotency-key': 'fallback-leak-1' }));
    f.fake.enqueue({ mode: 'rateLimit', message: `slow down ${PRIMARY_KEY}` }, { mode: 'serverError', message: `key ${FALLBACK_KEY.slice(0, 12)} failed` });
    await keep(await refine({}, { 'idempotency-key': 'fallback-leak-2' }));
    f.fake.enqueue('serverError');
    await keep(await refine({}, { 'idempotency-key': 'fallback-leak-3' }));
    await keep(await refine({ fallbacks: [{ provider: 'anthropic', providerApiKey: FALLBACK_KEY, extra: 1 }] }));
    seen.push(await (await fetch(`${f.server.url}/metrics`)).text());
    const tables = ['idempotency_keys', 'usage_daily', 'service_secrets', 'personas'] as const;
    seen.push(JSON.stringify(await Promise.all(tables.map((t) => f.server.storage.db.selectFrom(t).selectAll().execute()))));
    const logs = f.server.logs.join('');
    expect(f.fake.requests.filter((r) => r.provider === 'anthropic').length).toBeGreaterThanOrEqual(2);
    for (const key of [PRIMARY_KEY, FALLBACK_KEY]) {
      for (const fragment of [key, key.slice(0, 12), key.slice(-10)]) {
        for (const text of seen) expect(text).not.toContain(fragment);
        expect(logs).not.toContain(fragment);
      }
    }
  });
});

describe('fallbacks against one deadline', () => {
  // Long enough that a loaded machine still answers within the fallback's share; the tests bound times from below only.
  const { context, refine } = fallbackFixture(3_000);
  let f: RefineFixture;
  beforeAll(() => {
    f = context.f;
  });

  it('all attempts share one deadline: a silent provider leaves the fallback its share of the time', async () => {
    f.fake.enqueue('hang');
    const started = Date.now();
    const res = await refine();
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    // The primary had half of the 3 s, and no more: with all of it the fallback would have had none (a 504).
    expect(res.headers.get('x-provider')).toBe('anthropic/claude-test');
    expect(elapsed).toBeGreaterThanOrEqual(1_450);
  });

  it('every provider silent: one 504 at the shared deadline, naming each attempt', async () => {
    f.fake.setBehaviour('hang');
    const started = Date.now();
    const res = await refine({ fallbacks: [
      { provider: 'anthropic', providerApiKey: FALLBACK_KEY },
      { provider: 'google', providerApiKey: SECOND_FALLBACK_KEY },
    ] });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(504);
    expect(elapsed).toBeGreaterThanOrEqual(2_950);
    const message: string = (await res.json()).message;
    expect(message).toMatch(/^provider "openai" did not answer within \d+ ms; then provider "anthropic" did not answer within \d+ ms; then provider "google" did not answer within \d+ ms$/);
    // Shares of one deadline, not a deadline each.
    const shares = [...message.matchAll(/within (\d+) ms/g)].map((m) => Number(m[1]));
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3_000);
  });
});
