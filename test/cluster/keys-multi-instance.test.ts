/**
 * Keys on two real server processes sharing PostgreSQL and Redis: a rotation's
 * grace and a revocation hold on both instances, timed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, postgresAvailable, REDIS_TEST_URL, redisAvailable } from '../helpers/services.js';

const BOOTSTRAP = 'prk_keys_cluster_key_0123456789abcdefghijklm';
// sleeps because a rotation's grace runs on the wall clock of two server processes (no Clock reaches them); each use says more
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgresAvailable || !redisAvailable)('keys across two instances (PostgreSQL + Redis)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let a: ServerProcess;
  let b: ServerProcess;
  const call = (server: ServerProcess, path: string, key: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(server.url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
  /** Polls both instances until `key` is refused everywhere; returns the milliseconds it took. */
  const refusedEverywhereAfter = async (key: string, since: number): Promise<number> => {
    for (;;) {
      const statuses = await Promise.all([a, b].map(async (s) => (await call(s, '/v1/personas', key)).status));
      if (statuses.every((s) => s === 401)) return Date.now() - since;
      expect(statuses.every((s) => s === 200 || s === 401)).toBe(true);
      if (Date.now() - since > 10_000) throw new Error(`still accepted after 10 s: ${statuses}`);
      // sleeps because this is the interval of a poll that measures how long until it holds
      await sleep(100);
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, REDIS_URL: REDIS_TEST_URL, BOOTSTRAP_API_KEY: BOOTSTRAP, RATE_LIMIT_PER_MINUTE: '100000' };
    [a, b] = await Promise.all([startServerProcess(env, 20_000), startServerProcess(env, 20_000)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  const createOn = async (server: ServerProcess) => {
    const response = await call(server, '/v1/keys', BOOTSTRAP, { method: 'POST', body: { name: 'cluster', scopes: ['personas:read'] } });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; secret: string };
  };

  it('a key revoked on A is refused on A and B within 5 s', async () => {
    const key = await createOn(a);
    // Both instances have it cached as valid.
    expect((await call(a, '/v1/personas', key.secret)).status).toBe(200);
    expect((await call(b, '/v1/personas', key.secret)).status).toBe(200);
    const revokedAt = Date.now();
    expect((await call(a, `/v1/keys/${key.id}`, BOOTSTRAP, { method: 'DELETE' })).status).toBe(204);
    expect(await refusedEverywhereAfter(key.secret, revokedAt)).toBeLessThan(5_000);
  });

  it('a rotation on B with a 4 s grace: the old secret works on both until the grace ends, then is refused on both within 5 s', async () => {
    const key = await createOn(a);
    expect((await call(a, '/v1/personas', key.secret)).status).toBe(200);
    const rotatedAt = Date.now();
    const rotated = (await (await call(b, `/v1/keys/${key.id}/rotate`, BOOTSTRAP, { method: 'POST', body: { graceSeconds: 4 } })).json()) as {
      secret: string; previousSecretExpiresAt: string;
    };
    // Within the grace: both secrets on both instances.
    while (Date.now() - rotatedAt < 3_000) {
      for (const server of [a, b]) {
        expect((await call(server, '/v1/personas', key.secret)).status).toBe(200);
        expect((await call(server, '/v1/personas', rotated.secret)).status).toBe(200);
      }
      // sleeps because the test is about the whole grace: both secrets are asked for as it passes
      await sleep(250);
    }
    const graceEnds = Date.parse(rotated.previousSecretExpiresAt);
    // sleeps because the grace ends on the servers' wall clock
    await sleep(Math.max(0, graceEnds - Date.now()));
    expect(await refusedEverywhereAfter(key.secret, graceEnds)).toBeLessThan(5_000);
    for (const server of [a, b]) expect((await call(server, '/v1/personas', rotated.secret)).status).toBe(200);
  });
});
