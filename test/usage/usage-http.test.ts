import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeTokenCounts } from '../fakes/provider-wire-formats.js';
import { parseEventStream, readUntil } from '../helpers/event-stream.js';
import { ALL_PROVIDERS, callerKey, type RefineFixture, refineEnv, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const today = () => new Date().toISOString().slice(0, 10);

describe('X-Usage and X-Provider on every refine', () => {
  let f: RefineFixture;
  let personaId: string;
  let strictId: string;
  const refine = (provider: string, extra: Record<string, unknown> = {}, id = personaId) =>
    f.server.request('/v1/refine', { method: 'POST', json: { provider, providerApiKey: callerKey(provider), personaId: id, content: 'Thanks for your patience while we fixed the sync bug.', ...extra } });

  beforeAll(async () => {
    f = await startRefineFixture();
    const create = async (attributes: Record<string, unknown>) =>
      (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Usage', attributes } })).json()).id;
    personaId = await create({ tone: 'warm' });
    strictId = await create({ avoid: ['synergy'] });
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it.each(ALL_PROVIDERS)('%s: the tokens its wire format reported, one provider call, and who answered', async (provider) => {
    const res = await refine(provider);
    expect(res.status).toBe(200);
    const [sent] = f.fake.requests;
    const { input, output } = fakeTokenCounts(sent!.userText, `Rewritten: ${sent!.userText}`);
    expect(res.headers.get('x-usage')).toBe(`input_tokens=${input}, output_tokens=${output}, provider_calls=1`);
    expect(res.headers.get('x-provider')).toBe(`${provider}/${sent!.model}`);
  });

  it('counts a retried call: two calls, the tokens of the one that answered', async () => {
    f.fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 0.05, retryAfterHeader: 'ms' });
    f.fake.setBehaviour({ mode: 'ok', reply: 'Sorted, thanks for waiting.' });
    const res = await refine('openai');
    expect(res.status).toBe(200);
    const { input, output } = fakeTokenCounts(f.fake.requests[1]!.userText, 'Sorted, thanks for waiting.');
    expect(res.headers.get('x-usage')).toBe(`input_tokens=${input}, output_tokens=${output}, provider_calls=2`);
  });

  it('adds the repair call: both answers\' tokens, two calls', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'We value synergy here.' }, { mode: 'ok', reply: 'We value teamwork here.' });
    const res = await refine('anthropic', {}, strictId);
    expect(await res.json()).toEqual({ response: 'We value teamwork here.' });
    const [first, repair] = f.fake.requests;
    const a = fakeTokenCounts(first!.userText, 'We value synergy here.');
    const b = fakeTokenCounts(repair!.userText, 'We value teamwork here.');
    expect(res.headers.get('x-usage')).toBe(`input_tokens=${a.input + b.input}, output_tokens=${a.output + b.output}, provider_calls=2`);
  });

  it('leaves the token members out when a provider reported none, rather than guessing', async () => {
    f.fake.setBehaviour({ mode: 'ok', omitUsage: true });
    const res = await refine('localllm');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-usage')).toBe('provider_calls=1');
  });

  it('leaves a sum out when one of the calls did not report it', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'We value synergy here.' }, { mode: 'ok', reply: 'We value teamwork here.', omitUsage: true });
    const res = await refine('google', {}, strictId);
    expect(res.headers.get('x-usage')).toBe('provider_calls=2');
  });

  it('the offline rules provider: no calls, no tokens, X-Provider names it', async () => {
    const res = await f.server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId, content: 'Hello there.' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-usage')).toBe('input_tokens=0, output_tokens=0, provider_calls=0');
    expect(res.headers.get('x-provider')).toBe('rules');
  });

  it('the rules provider asked for the cache says X-Cache: MISS (never stored), streamed or not', async () => {
    const json = { provider: 'rules', personaId, content: 'Hello there.' };
    for (let i = 0; i < 2; i++) {
      const res = await f.server.request('/v1/refine', { method: 'POST', json, headers: { 'cache-control': 'max-age=600' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-cache')).toBe('MISS');
      expect(res.headers.get('age')).toBeNull();
    }
    const streamed = await f.server.request('/v1/refine', { method: 'POST', json: { ...json, stream: true }, headers: { 'cache-control': 'max-age=600' } });
    expect(streamed.headers.get('x-cache')).toBe('MISS');
    await streamed.text();
    const unasked = await f.server.request('/v1/refine', { method: 'POST', json });
    expect(unasked.headers.get('x-cache')).toBeNull();
  });

  it('Prometheus counts tokens by provider, model and direction, never by account or key', async () => {
    await refine('mistral', { model: 'mistral-test' });
    const metrics = await (await fetch(`${f.server.url}/metrics`)).text();
    expect(metrics).toMatch(/persona_refine_tokens_total\{provider="mistral",model="mistral-test",direction="input"\} \d+/);
    expect(metrics).toMatch(/persona_refine_tokens_total\{provider="mistral",model="mistral-test",direction="output"\} \d+/);
    const labels = [...metrics.matchAll(/^persona_refine_tokens_total\{([^}]*)\}/gm)].map((m) => m[1]!);
    expect(labels.length).toBeGreaterThan(0);
    for (const set of labels) expect(set.split(',').map((pair) => pair.split('=')[0]).sort()).toEqual(['direction', 'model', 'provider']);
    expect(metrics).not.toContain(callerKey('mistral'));
  });
});

describe.each(storageTargets)('GET /v1/usage on $engine', (target) => {
  let f: RefineFixture;
  let second: TestServer;

  beforeAll(async () => {
    // The counts must not depend on the machine's speed: no deadline a loaded machine could reach.
    const env = { PROVIDER_TIMEOUT_MS: '15000' };
    f = await startRefineFixture({ target, env });
    // Another instance on the same database, as behind a load balancer.
    second = await startTestServer({ shareDatabaseWith: f.server, env: refineEnv(f.fake, env) });
  });
  afterAll(async () => {
    await second.close();
    await f.close();
  });
  beforeEach(() => f.fake.reset());

  const newAccount = async (name: string) => {
    const key = await f.server.createAccount(`${name}-${target.engine}`);
    const persona = await (await f.server.request('/v1/personas', { method: 'POST', key, json: { name } })).json();
    return { key, personaId: persona.id as string };
  };
  const refineAs = (server: TestServer, account: { key: string; personaId: string }, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    server.request('/v1/refine', {
      method: 'POST', key: account.key, headers,
      json: { providerApiKey: callerKey(String(body.provider)), personaId: account.personaId, content: 'Your invoice is ready.', ...body },
    });

  it('after a mixed run: one row per day × provider × model with refines, failures, cache hits, calls and tokens', async () => {
    const account = await newAccount('mixed');
    f.fake.setBehaviour({ mode: 'ok', reply: 'Your invoice is ready — have a look!' });
    const tokens = fakeTokenCounts('', 'Your invoice is ready — have a look!');
    const expectOk = async (res: Response) => expect(res.status).toBe(200);
    await expectOk(await refineAs(f.server, account, { provider: 'openai' }, { 'cache-control': 'max-age=600' }));
    const input = fakeTokenCounts(f.fake.requests[0]!.userText, '').input;
    await expectOk(await refineAs(f.server, account, { provider: 'openai' }, { 'cache-control': 'max-age=600' })); // a hit
    await expectOk(await refineAs(f.server, account, { provider: 'openai', model: 'gpt-other' }));
    expect((await refineAs(f.server, account, { provider: 'anthropic', model: 'fake-serverError' })).status).toBe(502);
    await expectOk(await refineAs(f.server, account, { provider: 'rules' }));

    const openaiDefault = f.fake.requests[0]!.model;
    const res = await f.server.request(`/v1/usage?from=${today()}&to=${today()}`, { key: account.key });
    expect(res.status).toBe(200);
    const row = (provider: string, model: string | null, counts: Record<string, number>) => ({
      day: today(), provider, model, endpoint: 'refine', refines: 0, failures: 0, cacheHits: 0, providerCalls: 0, inputTokens: 0, outputTokens: 0, ...counts,
    });
    expect(await res.json()).toEqual([
      // A 500 is retried twice: three calls, no tokens.
      row('anthropic', 'fake-serverError', { failures: 1, providerCalls: 3 }),
      row('openai', openaiDefault, { refines: 2, cacheHits: 1, providerCalls: 1, inputTokens: input, outputTokens: tokens.output }),
      row('openai', 'gpt-other', { refines: 1, providerCalls: 1, inputTokens: input, outputTokens: tokens.output }),
      // No model, as GET /v1/providers says of rules (not "").
      row('rules', null, { refines: 1 }),
    ]);
  });

  it('a stream the client leaves after its first text counts its calls, but neither a refine nor a failure; one its provider breaks is a failure', async () => {
    const account = await newAccount('left');
    const usageRow = async (model: string) => {
      const rows = (await (await f.server.request(`/v1/usage?from=${today()}&to=${today()}`, { key: account.key })).json()) as { model: string }[];
      return rows.find((row) => row.model === model);
    };
    const stream = (model: string, signal?: AbortSignal) =>
      f.server.request('/v1/refine', {
        method: 'POST', key: account.key, signal,
        json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId: account.personaId, content: 'Your invoice is ready.', model, stream: true },
      });
    const reply = 'Your invoice is ready, and so is the receipt that goes with it.';

    f.fake.setBehaviour({ mode: 'streamStall', reply, failAfterPieces: 12, pieceChars: 4 });
    const client = new AbortController();
    await readUntil(await stream('gpt-left', client.signal), (text) => text.includes('event: delta'));
    client.abort();
    await expect.poll(() => usageRow('gpt-left'), { timeout: 20_000 }).toBeDefined();
    expect(await usageRow('gpt-left')).toMatchObject({ refines: 0, failures: 0, providerCalls: 1 });

    f.fake.setBehaviour({ mode: 'streamCut', reply, failAfterPieces: 12, pieceChars: 4 });
    expect(parseEventStream(await (await stream('gpt-cut')).text()).at(-1)!.event).toBe('error');
    await expect.poll(() => usageRow('gpt-cut'), { timeout: 20_000 }).toBeDefined();
    expect(await usageRow('gpt-cut')).toMatchObject({ refines: 0, failures: 1, providerCalls: 1 });
  });

  it('two instances counting the same rows concurrently lose no increment', async () => {
    const account = await newAccount('concurrent');
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => refineAs(i % 2 ? second : f.server, account, { provider: 'groq' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    // Each instance writes what it counted before answering; reading through both makes both write.
    await second.request('/v1/usage', { key: account.key });
    const rows = await (await f.server.request('/v1/usage', { key: account.key })).json();
    const { input, output } = fakeTokenCounts(f.fake.requests[0]!.userText, `Rewritten: ${f.fake.requests[0]!.userText}`);
    expect(rows).toEqual([
      { day: today(), provider: 'groq', model: f.fake.requests[0]!.model, endpoint: 'refine', refines: 40, failures: 0, cacheHits: 0, providerCalls: 40, inputTokens: 40 * input, outputTokens: 40 * output },
    ]);
  });

  it("is scoped to the caller's account and to the days asked for", async () => {
    const mine = await newAccount('scoped-mine');
    const theirs = await newAccount('scoped-theirs');
    await refineAs(f.server, mine, { provider: 'xai' });
    expect(await (await f.server.request('/v1/usage', { key: theirs.key })).json()).toEqual([]);
    expect(await (await f.server.request('/v1/usage?from=2020-01-01&to=2020-01-31', { key: mine.key })).json()).toEqual([]);
    const defaults = await (await f.server.request('/v1/usage', { key: mine.key })).json();
    expect(defaults).toHaveLength(1);
  });

  it.each([
    ['from=2026-02-30', 'from must be a date as YYYY-MM-DD (UTC), e.g. 2026-11-01'],
    ['to=yesterday', 'to must be a date as YYYY-MM-DD (UTC), e.g. 2026-11-01'],
    ['from=2026-11-02&to=2026-11-01', 'from must not be after to'],
    ['from=2024-01-01&to=2026-01-01', 'the range from..to must span at most 366 days'],
    ['month=11', 'unknown field "month" in query string'],
  ])('?%s → 400 with a precise message', async (query, message) => {
    const res = await f.server.request(`/v1/usage?${query}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 400, message });
  });

  it('needs an API key', async () => {
    const res = await f.server.request('/v1/usage', { key: null });
    expect(res.status).toBe(401);
  });
});
