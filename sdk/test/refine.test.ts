import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine, PersonaRefineError, type RefineInput } from '../src/index.js';

const PROVIDER_KEY = 'sk-test-caller-provider-key-123456';

describe('client.refine against a real server and a fake provider', () => {
  let fake: FakeProviderServer;
  let server: TestServer;
  let client: PersonaRefine;
  let personaId: string;
  const input = (content = 'Your refund was processed.'): RefineInput => ({ provider: 'openai', providerApiKey: PROVIDER_KEY, personaId, content });
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (e: unknown) => e as PersonaRefineError);

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({ env: { PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), PROVIDER_TIMEOUT_MS: '1000' } });
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    personaId = (await client.personas.create({ name: 'Acme Support', attributes: { tone: 'warm' } })).id;
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('exposes the rules still broken as result.violations, without changing the body', async () => {
    const strict = await client.personas.create({ name: 'Strict', attributes: { avoid: ['synergy'], maxWords: 2 } });
    const result = await client.refine({ provider: 'rules', personaId: strict.id, content: 'Pure synergy, every day.' });
    expect(result).toEqual({ response: 'Pure synergy, every day.' });
    expect(result.violations).toEqual({ avoid: 1, maxWords: 1 });
    const clean = await client.refine({ provider: 'rules', personaId: strict.id, content: 'Hello there.' });
    expect(clean.violations).toEqual({});
  });

  it('exposes usage, who answered and the cache status, without changing the body', async () => {
    fake.setBehaviour({ mode: 'ok', reply: 'Good news: your refund is on its way.' });
    // Letters only: a number in the content would have to survive the rewrite (the preserve rule).
    const content = `Cached refund ${Math.random().toString(36).replace(/[^a-z]/g, '')}`;
    const miss = await client.refine({ ...input(content), model: 'gpt-sdk' }, { cache: { maxAge: 600 } });
    expect(miss).toEqual({ response: 'Good news: your refund is on its way.' });
    expect(JSON.stringify(miss)).toBe('{"response":"Good news: your refund is on its way."}');
    expect(miss.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: 10, providerCalls: 1 });
    expect(miss.provider).toEqual({ id: 'openai', model: 'gpt-sdk' });
    expect(miss.cache).toEqual({ hit: false });
    const hit = await client.refine({ ...input(content), model: 'gpt-sdk' }, { cache: { maxAge: 600 } });
    expect(hit.cache).toEqual({ hit: true, ageSeconds: expect.any(Number) });
    expect(hit.usage).toEqual({ inputTokens: 0, outputTokens: 0, providerCalls: 0 });
    expect(fake.requestCount).toBe(1);
    expect((await client.refine(input(content), { cache: 'no-store' })).cache).toEqual({ hit: false });
    expect((await client.refine(input(content))).cache).toBeUndefined();
  });

  it('a token member the provider did not report is absent, not guessed', async () => {
    fake.setBehaviour({ mode: 'ok', omitUsage: true });
    expect((await client.refine(input())).usage).toEqual({ providerCalls: 1 });
  });

  it('sends fallbacks; the result names the fallback that answered', async () => {
    fake.enqueue('serverError');
    const result = await client.refine({ ...input(), fallbacks: [{ provider: 'openai', providerApiKey: 'sk-second-key-000000', model: 'gpt-fallback' }] });
    expect(result.provider).toEqual({ id: 'openai', model: 'gpt-fallback' });
    expect(result.usage.providerCalls).toBe(2);
  });

  it('usage.list returns the account\'s daily rows', async () => {
    await client.refine({ ...input(), model: 'gpt-usage-list' });
    const today = new Date().toISOString().slice(0, 10);
    const rows = await client.usage.list({ from: today, to: today });
    expect(rows).toContainEqual(expect.objectContaining({ day: today, provider: 'openai', model: 'gpt-usage-list', refines: 1, providerCalls: 1 }));
    expect(await client.usage.list({ from: '2020-01-01', to: '2020-01-02' })).toEqual([]);
    expect((await client.usage.list()).length).toBeGreaterThan(0);
  });

  it('returns exactly { response }', async () => {
    fake.setBehaviour({ mode: 'ok', reply: 'Good news: your refund is on its way.' });
    expect(await client.refine(input())).toEqual({ response: 'Good news: your refund is on its way.' });
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
  });

  it('passes a model override', async () => {
    await client.refine({ ...input(), model: 'gpt-custom' });
    expect(fake.requests[0]!.model).toBe('gpt-custom');
  });

  it('a repeated call with the same idempotencyKey gets the first answer without paying the provider twice', async () => {
    fake.setBehaviour({ mode: 'ok', reply: (text) => `once: ${text.length}` });
    const first = await client.refine(input('same text'), { idempotencyKey: 'refine-once-1' });
    const second = await client.refine(input('same text'), { idempotencyKey: 'refine-once-1' });
    expect(second).toEqual(first);
    expect(fake.requestCount).toBe(1);
  });

  it('a rejected provider key is a 400 with source "provider"', async () => {
    fake.setBehaviour('rejectKey');
    const error = await failure(client.refine(input()));
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ kind: 'http', status: 400, source: 'provider' });
    expect(error.message).toMatch(/^provider "openai" rejected providerApiKey/);
    expect(error.requestId).toMatch(/.+/);
    expect(fake.requestCount).toBe(1);
  });

  it('a provider failing is a 502 with source "provider"', async () => {
    fake.setBehaviour('serverError');
    const error = await failure(client.refine(input(), { maxRetries: 0 }));
    expect(error).toMatchObject({ kind: 'http', status: 502, source: 'provider' });
    expect(error.message).toMatch(/^provider "openai" /);
  });

  it('a provider rate limit is a 429 with source "provider" and its Retry-After', async () => {
    fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 7 });
    const error = await failure(client.refine(input(), { maxRetries: 0 }));
    expect(error).toMatchObject({ kind: 'http', status: 429, source: 'provider', retryAfter: 7 });
  });

  it('a provider that never answers is a 504 with source "provider"; maxRetries: 0 makes it one provider call', async () => {
    fake.setBehaviour('hang');
    const error = await failure(client.refine(input(), { maxRetries: 0 }));
    expect(error).toMatchObject({ kind: 'http', status: 504, source: 'provider' });
    expect(fake.requestCount).toBe(1);
  });

  it('a 504 is retried and really runs again, since the service stores no 5xx under the key: each attempt calls the provider', async () => {
    fake.setBehaviour('hang');
    const retried: number[] = [];
    const counting = new PersonaRefine({ apiKey: server.key, baseUrl: server.url, onRetry: (e) => retried.push(e.error.status) });
    const error = await failure(counting.refine(input(), { maxRetries: 1, idempotencyKey: `retry-504-${Date.now()}` }));
    expect(error).toMatchObject({ kind: 'http', status: 504, source: 'provider' });
    expect(retried).toEqual([504]);
    expect(fake.requestCount).toBe(2);
  });

  it('an unknown persona is a 404 from the service; the provider is not called', async () => {
    const error = await failure(client.refine({ ...input(), personaId: '01a20097-9207-7000-9c41-72893e6c0112' }));
    expect(error).toMatchObject({ kind: 'http', status: 404, source: 'service' });
    expect(fake.requestCount).toBe(0);
  });

  it('an unknown provider is a 400 from the service that lists the supported ones', async () => {
    const error = await failure(client.refine({ ...input(), provider: 'skynet' }));
    expect(error).toMatchObject({ status: 400, source: 'service' });
    expect(error.message).toMatch(/openai/);
  });

  it('providers() lists what the service can call, with the default model and whether a key is needed', async () => {
    const providers = await client.providers();
    expect(providers[0]).toEqual({ id: 'openai', name: 'OpenAI', defaultModel: 'gpt-5.4-mini', requiresKey: true });
    expect(providers.at(-1)).toEqual({ id: 'rules', name: 'Rules only (no model)', defaultModel: null, requiresKey: false });
    expect(providers.map((provider) => provider.id)).toEqual(['openai', 'anthropic', 'google', 'mistral', 'groq', 'deepseek', 'xai', 'rules']);
  });
});
