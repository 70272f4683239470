/**
 * Two real server processes on one PostgreSQL and one Redis, as behind a load
 * balancer: they must behave as one service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliCreateAccount } from '../helpers/cli.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, postgresAvailable, REDIS_TEST_URL, redisAvailable } from '../helpers/services.js';

const BOOTSTRAP = 'prk_multi_instance_key_0123456789abcdefghijk';

async function awayFromWindowEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  // sleeps because the rate limit's window is the wall clock's minute (the limiter reads no Clock): a burst must not straddle two
  if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 50));
}

describe.skipIf(!postgresAvailable || !redisAvailable)('two instances, one PostgreSQL, one Redis', () => {
  let database: { url: string; drop: () => Promise<void> };
  let a: ServerProcess;
  let b: ServerProcess;
  const call = (server: ServerProcess, path: string, init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(server.url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${init.key ?? BOOTSTRAP}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, REDIS_URL: REDIS_TEST_URL, BOOTSTRAP_API_KEY: BOOTSTRAP, RATE_LIMIT_PER_MINUTE: '40' };
    // Started together: migrations and the first-start account must survive the race.
    [a, b] = await Promise.all([startServerProcess(env, 20_000), startServerProcess(env, 20_000)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  it('create on A; read, patch and delete on B', async () => {
    const { key } = await cliCreateAccount(database.url, 'crud');
    const created = await (await call(a, '/v1/personas', { method: 'POST', key, body: { name: 'Shared', attributes: { x: 1 } } })).json() as { id: string };
    expect(await (await call(b, `/v1/personas/${created.id}`, { key })).json()).toEqual({ id: created.id, name: 'Shared', attributes: { x: 1 } });
    const patched = await call(b, `/v1/personas/${created.id}`, { method: 'PATCH', key, body: { name: 'Shared v2' }, headers: { 'if-match': '"1"' } });
    expect(patched.status).toBe(200);
    expect((await (await call(a, `/v1/personas/${created.id}`, { key })).json() as { name: string }).name).toBe('Shared v2');
    expect((await call(b, `/v1/personas/${created.id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await call(a, `/v1/personas/${created.id}`, { key })).status).toBe(404);
  });

  it('an If-Match race across A and B has exactly one winner', async () => {
    const { key } = await cliCreateAccount(database.url, 'race');
    const created = await call(a, '/v1/personas', { method: 'POST', key, body: { name: 'Contended' } });
    const { id } = await created.json() as { id: string };
    const etag = created.headers.get('etag')!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? a : b, `/v1/personas/${id}`, { method: 'PATCH', key, body: { name: `w${i}` }, headers: { 'if-match': etag } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(19);
  });

  it('20 concurrent PATCHes across A and B get consecutive, gap-free, unique versions', async () => {
    const { key } = await cliCreateAccount(database.url, 'versions');
    const { id } = await (await call(a, '/v1/personas', { method: 'POST', key, body: { name: 'Versioned' } })).json() as { id: string };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i % 2 ? a : b, `/v1/personas/${id}`, { method: 'PATCH', key, body: { name: `v${i}` } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const etags = results.map((r) => Number(r.headers.get('etag')!.replaceAll('"', ''))).sort((x, y) => x - y);
    const versions = (await (await call(b, `/v1/personas/${id}/versions`, { key })).json() as { version: number }[]).map((v) => v.version);
    process.stdout.write(`20-way PATCH race across two instances: ETags ${etags.join(',')}; versions ${versions.join(',')}\n`);
    expect(etags).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(versions).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });

  it('an Idempotency-Key replayed on the other instance returns the first answer', async () => {
    const { key } = await cliCreateAccount(database.url, 'idem');
    const init = { method: 'POST', key, body: { name: 'Once only' }, headers: { 'idempotency-key': 'cross-instance-1' } };
    const first = await call(a, '/v1/personas', init);
    const replay = await call(b, '/v1/personas', init);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(await first.text());
    expect(await (await call(b, '/v1/personas', { key })).json()).toHaveLength(1);
  });

  it('shares the rate limit: one key\'s budget is spent across both', async () => {
    const { key } = await cliCreateAccount(database.url, 'limited');
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await call(i % 2 ? a : b, '/v1/personas', { key })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await call(a, '/v1/personas', { key })).status).toBe(429);
    expect((await call(b, '/v1/personas', { key })).status).toBe(429);
  });

  it('a key revoked through the CLI is refused by both within 5 s', async () => {
    const { key, keyId } = await cliCreateAccount(database.url, 'revoked');
    expect((await call(a, '/v1/personas', { key })).status).toBe(200);
    expect((await call(b, '/v1/personas', { key })).status).toBe(200);
    await cli(database.url, 'keys', 'revoke', keyId);
    const revokedAt = Date.now();
    const refusedAfter = async (server: ServerProcess) => {
      while ((await call(server, '/v1/personas', { key })).status !== 401) {
        if (Date.now() - revokedAt > 6_000) return Infinity;
        // sleeps because this is the interval of a poll that measures how long until it holds
        await new Promise((r) => setTimeout(r, 50));
      }
      return Date.now() - revokedAt;
    };
    const [delayA, delayB] = await Promise.all([refusedAfter(a), refusedAfter(b)]);
    process.stdout.write(`revocation delay across instances: A ${delayA} ms, B ${delayB} ms\n`);
    expect(Math.max(delayA, delayB)).toBeLessThan(5_000);
  });

  it('kill -9 of A during a stream of writes loses nothing A acknowledged, and B keeps serving', async () => {
    const { key } = await cliCreateAccount(database.url, 'crash');
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async () => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await call(a, '/v1/personas', { method: 'POST', key, body: { name: `n${i}` } });
          if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
        } catch {
          return;
        }
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    // Killed mid-stream once writes are being acknowledged (time alone depends on the machine's load).
    await expect.poll(() => acknowledged.length, { timeout: 20_000, interval: 25 }).toBeGreaterThanOrEqual(20);
    a.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(0);
    // Another key of the same account: the writers may have spent the first one's rate budget.
    const reader = (await cli(database.url, 'keys', 'create', '--account', 'crash')).trim().split('\n').at(-1)!;
    const list = await call(b, '/v1/personas', { key: reader });
    expect(list.status).toBe(200);
    const stored = new Set(((await list.json()) as { id: string }[]).map((p) => p.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  });
});
