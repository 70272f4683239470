import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, refineEnv, startRefineFixture } from '../helpers/refine-fixture.js';
import { REDIS_TEST_URL, redisAvailable } from '../helpers/services.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const CONTENT = 'Your order shipped today and should arrive on Friday.';

/** Every text the database holds, table by table: where a secret must not be. */
async function databaseText(server: TestServer): Promise<string> {
  const tables = ['accounts', 'api_keys', 'personas', 'idempotency_keys', 'usage_daily', 'service_secrets'] as const;
  const rows = await Promise.all(tables.map((table) => server.storage.db.selectFrom(table).selectAll().execute()));
  return JSON.stringify(rows);
}

describe.each(storageTargets)('the answer cache on $engine', (target) => {
  let f: RefineFixture;
  let personaId: string;
  const body = (extra: Record<string, unknown> = {}) => ({ provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: CONTENT, ...extra });
  const refine = (cacheControl: string | undefined, extra: Record<string, unknown> = {}) =>
    f.server.request('/v1/refine', { method: 'POST', json: body(extra), headers: cacheControl ? { 'cache-control': cacheControl } : {} });

  beforeAll(async () => {
    f = await startRefineFixture({ target });
  });
  afterAll(() => f.close());
  beforeEach(async () => {
    f.fake.reset();
    // A fresh persona per test: nothing cached by another test can answer.
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Cached', attributes: { tone: 'calm' } } })).json()).id;
  });

  it('MISS, then HIT with Age, the same answer and who produced it, and no second provider call', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'It shipped today; expect it Friday.' });
    const miss = await refine('max-age=3600');
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    expect(miss.headers.get('age')).toBeNull();
    const hit = await refine('max-age=3600');
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.headers.get('age')).toMatch(/^\d+$/);
    expect(await hit.json()).toEqual(await miss.json());
    expect(hit.headers.get('x-provider')).toBe(miss.headers.get('x-provider'));
    expect(hit.headers.get('x-usage')).toBe('input_tokens=0, output_tokens=0, provider_calls=0');
    expect(f.fake.requestCount).toBe(1);
  });

  it('an entry older than max-age is not used', async () => {
    await refine('max-age=3600');
    // sleeps because the entry must be older than max-age=0 by the wall clock the cache reads
    await new Promise((resolve) => setTimeout(resolve, 20));
    const res = await refine('max-age=0');
    expect(res.headers.get('x-cache')).toBe('MISS');
    expect(f.fake.requestCount).toBe(2);
  });

  it('no-cache forces a fresh call and refreshes the entry', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'first answer' }, { mode: 'ok', reply: 'second answer' });
    await refine('max-age=3600');
    const fresh = await refine('no-cache');
    expect(fresh.headers.get('x-cache')).toBe('MISS');
    expect(await fresh.json()).toEqual({ response: 'second answer' });
    const hit = await refine('max-age=3600');
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(await hit.json()).toEqual({ response: 'second answer' });
    expect(f.fake.requestCount).toBe(2);
  });

  it('no-store neither reads nor writes', async () => {
    await refine('max-age=3600');
    const res = await refine('no-store');
    expect(res.headers.get('x-cache')).toBe('MISS');
    expect(f.fake.requestCount).toBe(2);
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Unstored' } })).json()).id;
    await refine('no-store');
    expect((await refine('max-age=3600')).headers.get('x-cache')).toBe('MISS');
  });

  it('without Cache-Control nothing changes: no X-Cache, nothing read or written', async () => {
    await refine('max-age=3600');
    const res = await refine(undefined);
    expect(res.headers.get('x-cache')).toBeNull();
    expect(f.fake.requestCount).toBe(2);
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Plain' } })).json()).id;
    await refine(undefined);
    expect((await refine('max-age=3600')).headers.get('x-cache')).toBe('MISS');
  });

  it('another provider key misses: one key never receives what another paid for', async () => {
    await refine('max-age=3600');
    const res = await refine('max-age=3600', { providerApiKey: 'sk-another-callers-key-0000000000' });
    expect(res.headers.get('x-cache')).toBe('MISS');
    expect(f.fake.requestCount).toBe(2);
  });

  it('another account misses, with the same provider key and content', async () => {
    await refine('max-age=3600');
    const otherKey = await f.server.createAccount(`cache-other-${Date.now()}`);
    const theirs = (await (await f.server.request('/v1/personas', { method: 'POST', key: otherKey, json: { name: 'Cached', attributes: { tone: 'calm' } } })).json()).id;
    const res = await f.server.request('/v1/refine', { method: 'POST', key: otherKey, json: body({ personaId: theirs }), headers: { 'cache-control': 'max-age=3600' } });
    expect(res.headers.get('x-cache')).toBe('MISS');
  });

  it('another model or content misses', async () => {
    await refine('max-age=3600');
    expect((await refine('max-age=3600', { model: 'gpt-other' })).headers.get('x-cache')).toBe('MISS');
    expect((await refine('max-age=3600', { content: `${CONTENT} ` })).headers.get('x-cache')).toBe('MISS');
    expect(f.fake.requestCount).toBe(3);
  });

  it('a persona update misses: the version is part of the key', async () => {
    await refine('max-age=3600');
    const patched = await f.server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { attributes: { tone: 'playful' } } });
    expect(patched.status).toBe(200);
    expect((await refine('max-age=3600')).headers.get('x-cache')).toBe('MISS');
    expect(f.fake.requestCount).toBe(2);
  });

  it('key order and whitespace in the JSON body never change the key', async () => {
    const send = (raw: string) =>
      f.server.request('/v1/refine', { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=3600' } });
    const b = body();
    const first = await send(JSON.stringify(b));
    expect(first.headers.get('x-cache')).toBe('MISS');
    const permutations = [
      JSON.stringify({ content: b.content, personaId: b.personaId, providerApiKey: b.providerApiKey, provider: b.provider }),
      `{\n  "personaId" : ${JSON.stringify(b.personaId)},\t"provider":"openai" ,\r\n "content":${JSON.stringify(b.content)}, "providerApiKey":${JSON.stringify(b.providerApiKey)}\n}\n`,
      JSON.stringify(b, null, 4),
    ];
    for (const raw of permutations) expect((await send(raw)).headers.get('x-cache')).toBe('HIT');
    expect(f.fake.requestCount).toBe(1);
  });

  it("a hit still passes the persona's rules: what the repair could not fix is reported again", async () => {
    const strict = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Strict', attributes: { avoid: ['synergy'] } } })).json()).id;
    f.fake.setBehaviour({ mode: 'ok', reply: 'Pure synergy.' });
    const miss = await refine('max-age=3600', { personaId: strict });
    expect(miss.headers.get('x-persona-violations')).toBe('avoid=1');
    const hit = await refine('max-age=3600', { personaId: strict });
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.headers.get('x-persona-violations')).toBe('avoid=1');
    expect(await hit.json()).toEqual(await miss.json());
  });

  it('a malformed max-age is a 400 before any provider call', async () => {
    const res = await refine('max-age=soon');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 400, message: 'Cache-Control max-age must be a whole number of seconds, e.g. "Cache-Control: max-age=3600"' });
    expect(f.fake.requestCount).toBe(0);
  });

  it('the provider key is stored nowhere in the database', async () => {
    await refine('max-age=3600');
    expect(await databaseText(f.server)).not.toContain(callerKey('openai'));
  });
});

describe.skipIf(!redisAvailable)('the answer cache shared through Redis', () => {
  let f: RefineFixture;
  let second: TestServer;
  let redis: Redis;
  let personaId: string;

  beforeAll(async () => {
    redis = new Redis(REDIS_TEST_URL);
    const env = { REDIS_URL: REDIS_TEST_URL };
    f = await startRefineFixture({ env });
    await f.server.close();
    // Both instances share the database and Redis, as behind a load balancer.
    const first = await startTestServer({ env: refineEnv(f.fake, env), redis: new Redis(REDIS_TEST_URL) });
    second = await startTestServer({ shareDatabaseWith: first, env: refineEnv(f.fake, env), redis: new Redis(REDIS_TEST_URL) });
    f = { ...f, server: first };
    personaId = (await (await first.request('/v1/personas', { method: 'POST', json: { name: 'Shared' } })).json()).id;
  });
  afterAll(async () => {
    await second.close();
    await f.close();
    redis.disconnect();
  });

  it('an answer one instance stored is a HIT on the other, and the provider key is in neither Redis nor the database', async () => {
    const json = { provider: 'anthropic', providerApiKey: callerKey('anthropic'), personaId, content: `Shared ${Date.now()}` };
    const headers = { 'cache-control': 'max-age=600' };
    const miss = await f.server.request('/v1/refine', { method: 'POST', json, headers });
    expect(miss.headers.get('x-cache')).toBe('MISS');
    const hit = await second.request('/v1/refine', { method: 'POST', json, headers });
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(await hit.json()).toEqual(await miss.json());
    expect(f.fake.requestCount).toBe(1);

    const keys = await redis.keys('persona-refine:answer:*');
    expect(keys.length).toBeGreaterThan(0);
    const values = await Promise.all(keys.map((key) => redis.get(key)));
    const everything = JSON.stringify([keys, values]);
    expect(everything).not.toContain(callerKey('anthropic'));
    expect(everything).toContain('Rewritten');
    expect(await databaseText(f.server)).not.toContain(callerKey('anthropic'));
  });
});
