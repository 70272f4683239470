import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/limits/redis.js';
import { StorageUnavailableError } from '../../src/storage/storage-errors.js';
import { createTestDatabase, postgresAvailable, REDIS_TEST_URL, redisAvailable } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    // sleeps because this is the interval of a poll that measures how long until it holds
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

describe.skipIf(!postgresAvailable)('PostgreSQL going away and coming back', () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    database = await createTestDatabase();
    const real = new URL(database.url);
    proxy = await startTcpProxy(real.hostname, Number(real.port || 5432));
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    server = await startTestServer({ env: { DATABASE_URL: proxied.toString() } });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 with Retry-After (never 500) while it is gone, and recovers without a restart', async () => {
    const { id } = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Survivor' } })).json();
    await proxy.down();

    // The storage layer says so itself, with a typed error; the HTTP layer only maps it.
    await expect(server.storage.db.selectFrom('personas').selectAll().execute()).rejects.toBeInstanceOf(StorageUnavailableError);

    for (const res of [
      await server.request(`/v1/personas/${id}`),
      await server.request('/v1/personas', { method: 'POST', json: { name: 'During outage' } }),
      await server.request('/readyz', { key: null }),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: 503, message: expect.stringMatching(/storage/) });
    }
    expect((await server.request('/healthz', { key: null })).status).toBe(200);

    await proxy.up();
    await eventually(async () => (await server.request(`/v1/personas/${id}`)).status === 200, 10_000);
    expect((await server.request('/readyz', { key: null })).status).toBe(200);
    const names = (await (await server.request('/v1/personas')).json()).map((p: { name: string }) => p.name);
    expect(names).toEqual(['Survivor']);
  });
});

describe.skipIf(!redisAvailable)('Redis going away and coming back', () => {
  it('keeps serving on in-process limits with a warning, and shares limits again when it returns', async () => {
    const real = new URL(REDIS_TEST_URL);
    const proxy = await startTcpProxy(real.hostname, Number(real.port || 6379));
    const redis = await connectRedis(`redis://127.0.0.1:${proxy.port}`);
    const server = await startTestServer({ redis, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    try {
      expect((await server.request('/v1/personas')).status).toBe(200);
      await proxy.down();
      for (let i = 0; i < 5; i++) expect((await server.request('/v1/personas')).status).toBe(200);
      expect(server.logs.join('')).toContain('Redis is unavailable; rate limits fall back to this instance');

      await proxy.up();
      await eventually(async () => {
        await server.request('/v1/personas');
        return server.logs.join('').includes('Redis is answering again');
      }, 10_000);
    } finally {
      await server.close();
      redis.disconnect();
      await proxy.close();
    }
  });
});
