import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/limits/redis.js';
import { callerKey, startRefineFixture } from '../helpers/refine-fixture.js';
import { REDIS_TEST_URL, redisAvailable } from '../helpers/services.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer } from '../helpers/test-server.js';

/** Fixed one-minute windows: keep a short test from straddling a boundary. */
async function awayFromWindowEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  // sleeps because the rate limit's window is the wall clock's minute (the limiter reads no Clock): a burst must not straddle two
  if (intoWindow > 55_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 50));
}

describe('rate limiting per API key (in-process)', () => {
  it('sends RateLimit-* on every /v1 answer and 429 with Retry-After past the budget', async () => {
    const server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      await awayFromWindowEdge();
      for (let i = 0; i < 5; i++) {
        const res = await server.request('/v1/personas');
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe('5');
        expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
        expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      }
      const refused = await server.request('/v1/personas', { method: 'POST', json: { name: 'over' } });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(await refused.json()).toEqual({ error: 429, message: expect.stringMatching(/rate limit of 5 requests per minute/) });
      // Refused requests change nothing, and another key has its own budget.
      const other = await server.createAccount('limits-other');
      expect(await (await server.request('/v1/personas', { key: other })).json()).toEqual([]);
      const metrics = await (await server.request('/metrics', { key: null })).text();
      expect(metrics).toMatch(/rate_limit_rejections_total\{limit="requests_per_minute"\} 1/);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!redisAvailable)('rate limiting through Redis', () => {
  let redis: Awaited<ReturnType<typeof connectRedis>> | undefined;
  beforeAll(async () => {
    redis = await connectRedis(REDIS_TEST_URL);
  });
  afterAll(() => redis?.disconnect());

  it('two instances share one budget per key', async () => {
    const target = storageTargets.at(-1)!;
    const a = await startTestServer({ target, redis, env: { RATE_LIMIT_PER_MINUTE: '6' } });
    try {
      // Instance B shares A's database and Redis, as a second instance behind a load balancer would.
      const b = await startTestServer({ redis, shareDatabaseWith: a, env: { RATE_LIMIT_PER_MINUTE: '6' } });
      try {
        await awayFromWindowEdge();
        const statuses: number[] = [];
        for (let i = 0; i < 8; i++) statuses.push((await (i % 2 ? b : a).request('/v1/personas')).status);
        expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  });

  it('falls back to in-process limits and keeps serving when Redis is unreachable', async () => {
    const dead = await connectRedis('redis://127.0.0.1:1');
    const server = await startTestServer({ redis: dead, env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      await awayFromWindowEdge();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await server.request('/v1/personas')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(server.logs.join('')).toContain('Redis is unavailable; rate limits fall back to this instance');
    } finally {
      await server.close();
      dead.disconnect();
    }
  });
});

describe('concurrent refines per account', () => {
  it('caps refines in flight for one account with 429, others unaffected', async () => {
    const f = await startRefineFixture({ env: { MAX_CONCURRENT_REFINES_PER_ACCOUNT: '2' } });
    try {
      const personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Cap' } })).json()).id;
      f.fake.setBehaviour({ mode: 'slow', delayMs: 500 });
      const body = { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'x' };
      const results = await Promise.all(Array.from({ length: 3 }, () => f.server.request('/v1/refine', { method: 'POST', json: body })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 429]);
      const refused = results.find((r) => r.status === 429)!;
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('x-error-source')).toBeNull();
    } finally {
      await f.close();
    }
  });
});

describe.each(storageTargets)('optimistic concurrency on $engine', (target) => {
  it('20 concurrent PATCHes with the same If-Match: exactly one 200, nineteen 412', async () => {
    const server = await startTestServer({ target });
    try {
      const created = await server.request('/v1/personas', { method: 'POST', json: { name: 'Contended' } });
      const { id } = await created.json();
      const etag = created.headers.get('etag')!;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: `writer ${i}` }, headers: { 'if-match': etag } }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 412)).toHaveLength(19);
      const winner = await results.find((r) => r.status === 200)!.json();
      const current = await server.request(`/v1/personas/${id}`);
      expect((await current.json()).name).toBe(winner.name);
      expect(current.headers.get('etag')).toBe('"2"');
    } finally {
      await server.close();
    }
  });
});
