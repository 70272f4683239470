import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

const KEY = 'prk_crash_test_key_0123456789abcdefghijklmnopq';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'persona-refine-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(storageTargets)('crash safety on $engine', (target) => {
  it('every write acknowledged before kill -9 is there after the restart, its idempotency record too', async () => {
    const database = await target.create();
    const env = { DATABASE_URL: database.url, BOOTSTRAP_API_KEY: KEY, LOG_LEVEL: 'info' };
    try {
      const server = await startServerProcess(env);
      const acknowledged: { id: string; key: string; body: string }[] = [];
      let stop = false;
      const writer = async (worker: number) => {
        for (let i = 0; !stop; i++) {
          const key = `w${worker}-${i}`;
          const body = JSON.stringify({ name: key });
          try {
            const res = await fetch(`${server.url}/v1/personas`, { method: 'POST', headers: { ...headers, 'idempotency-key': key }, body });
            if (res.status === 201) acknowledged.push({ id: ((await res.json()) as { id: string }).id, key, body });
          } catch {
            return; // the server is gone
          }
        }
      };
      const writers = Array.from({ length: 8 }, (_, w) => writer(w));
      // Killed mid-flight once enough writes were acknowledged (a loaded machine takes longer to get there).
      await expect.poll(() => acknowledged.length, { timeout: 20_000, interval: 25 }).toBeGreaterThan(50);
      server.child.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      expect(acknowledged.length).toBeGreaterThan(50);

      const restarted = await startServerProcess(env);
      try {
        const stored = (await (await fetch(`${restarted.url}/v1/personas`, { headers })).json()) as { id: string }[];
        const storedIds = new Set(stored.map((p) => p.id));
        const lost = acknowledged.filter(({ id }) => !storedIds.has(id));
        process.stdout.write(`crash test (${target.engine}): ${acknowledged.length} acknowledged, ${lost.length} lost\n`);
        expect(lost).toEqual([]);
        // The answer was stored for replay before it left (a second write per request): the SDK's
        // retry after the crash gets that answer back, not a second persona.
        const notReplayed: string[] = [];
        for (const { id, key, body } of acknowledged) {
          const res = await fetch(`${restarted.url}/v1/personas`, { method: 'POST', headers: { ...headers, 'idempotency-key': key }, body });
          const replayed = (await res.json()) as { id: string };
          if (res.status !== 201 || res.headers.get('idempotent-replayed') !== 'true' || replayed.id !== id) notReplayed.push(key);
        }
        expect(notReplayed).toEqual([]);
      } finally {
        await restarted.stop();
      }
    } finally {
      await database.remove();
    }
  });
});

describe.each(storageTargets)('persona history across kill -9 on $engine', (target) => {
  it('versions and audit events match the acknowledged writes after a kill -9 mid-stream', async () => {
    const database = await target.create();
    const env = { DATABASE_URL: database.url, BOOTSTRAP_API_KEY: KEY, LOG_LEVEL: 'info' };
    const call = (url: string, path: string, method: string, requestId: string, body?: unknown) =>
      fetch(url + path, { method, headers: { ...headers, 'x-request-id': requestId }, body: body === undefined ? undefined : JSON.stringify(body) });
    try {
      const server = await startServerProcess(env);
      const ids: string[] = [];
      for (let p = 0; p < 4; p++) {
        // A fresh process may shed load for a moment (503): retry until created.
        let res = await call(server.url, '/v1/personas', 'POST', `create-${p}`, { name: `p${p}` });
        await expect
          .poll(async () => (res.status === 503 ? (res = await call(server.url, '/v1/personas', 'POST', `create-${p}`, { name: `p${p}` })) : res).status, { timeout: 5_000, interval: 100 })
          .not.toBe(503);
        expect(res.status).toBe(201);
        ids.push(((await res.json()) as { id: string }).id);
      }
      const acknowledged = new Set(ids.map((_, p) => `create-${p}`));
      let stop = false;
      let writersInFlight = 0;
      const writer = async (worker: number) => {
        writersInFlight++;
        const id = ids[worker % ids.length]!;
        for (let i = 0; !stop; i++) {
          const requestId = `w${worker}-${i}`;
          try {
            const res =
              i % 3 === 2
                ? await call(server.url, `/v1/personas/${id}/labels/production`, 'PUT', requestId, { version: 1 })
                : await call(server.url, `/v1/personas/${id}`, 'PATCH', requestId, { name: requestId });
            if (res.status === 200) acknowledged.add(requestId);
          } catch {
            return; // the server is gone
          }
        }
      };
      const writers = Array.from({ length: 8 }, (_, w) => writer(w));
      // Kill mid-stream once enough writes were answered (time alone depends on the machine's load).
      await expect.poll(() => acknowledged.size, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(60);
      server.child.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      expect(acknowledged.size).toBeGreaterThan(50);

      const restarted = await startServerProcess(env);
      try {
        // A freshly started process may shed load for a moment (503): read until it answers.
        const read = async (path: string) => {
          let res = await fetch(restarted.url + path, { headers });
          await expect.poll(async () => (res.status === 503 ? (res = await fetch(restarted.url + path, { headers })) : res).status, { timeout: 5_000, interval: 100 }).not.toBe(503);
          expect(res.status).toBe(200);
          return res;
        };
        const get = async (path: string) => (await read(path)).json();
        const events = (await get('/v1/audit?limit=1000')) as { action: string; personaId: string; version: number; requestId: string }[];
        expect(events.length).toBeLessThan(1000);
        const eventRequestIds = events.map((e) => e.requestId);
        // Every acknowledged write has exactly one event; at most the writes in flight at the kill committed unanswered.
        expect([...acknowledged].filter((r) => !eventRequestIds.includes(r))).toEqual([]);
        expect(new Set(eventRequestIds).size).toBe(eventRequestIds.length);
        expect(eventRequestIds.filter((r) => !acknowledged.has(r)).length).toBeLessThanOrEqual(writersInFlight);
        for (const id of ids) {
          const persona = await read(`/v1/personas/${id}`);
          const current = Number(persona.headers.get('etag')!.replaceAll('"', ''));
          const versions = ((await get(`/v1/personas/${id}/versions`)) as { version: number; name: string }[]).map((v) => v.version);
          // Gap-free history up to the current version, and one version event per version.
          expect(versions).toEqual(Array.from({ length: current }, (_, i) => i + 1));
          const versionEvents = events.filter((e) => e.personaId === id && e.action.startsWith('persona.')).map((e) => e.version);
          expect(versionEvents.sort((x, y) => x - y)).toEqual(versions);
        }
        process.stdout.write(`history crash test (${target.engine}): ${acknowledged.size} acknowledged, ${events.length} events\n`);
      } finally {
        await restarted.stop();
      }
    } finally {
      await database.remove();
    }
  });
});

describe('while shutting down', () => {
  it('answers a request that still arrives with the usual 503 and Retry-After, and finishes the in-flight one', async () => {
    const f = await startRefineFixture();
    try {
      const persona = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Closing' } })).json();
      f.fake.setBehaviour({ mode: 'slow', delayMs: 500, reply: 'finished' });
      const inFlight = f.server.request('/v1/refine', {
        method: 'POST',
        json: { provider: 'openai', providerApiKey: 'provider-key-closing-1', personaId: persona.id, content: 'hi' },
      });
      await f.fake.waitForRequests(1);
      // A request half sent when shutdown begins (its connection is busy, so it is not closed as idle).
      const { hostname, port } = new URL(f.server.url);
      const socket = createConnection({ host: hostname, port: Number(port) });
      await new Promise((r) => socket.once('connect', r));
      let answer = '';
      socket.on('data', (chunk) => (answer += String(chunk)));
      socket.write('GET /v1/personas HTTP/1.1\r\nHost: x\r\n');
      const closing = f.server.app.close();
      // sleeps because the rest of the head must come after the close has begun, which nothing outside shows
      await new Promise((r) => setTimeout(r, 50));
      socket.write(`Authorization: Bearer ${f.server.key}\r\n\r\n`);
      await new Promise((r) => socket.once('close', r));
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
      expect(answer).toMatch(/retry-after: 1/i);
      expect(answer).toMatch(/x-request-id: /i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: 503, message: 'the service is shutting down; retry shortly' });
      expect((await inFlight).status).toBe(200);
      await closing;
    } finally {
      await f.fake.close();
      await f.server.storage.close().catch(() => {});
    }
  });
});

describe('graceful shutdown', () => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await startFakeProviderServer();
  });
  afterAll(() => fake.close());

  it('on SIGTERM stops accepting, finishes an in-flight refine, closes storage and exits 0', async () => {
    const server = await startServerProcess({
      DATABASE_URL: `sqlite:${join(dir, 'shutdown.sqlite')}`,
      BOOTSTRAP_API_KEY: KEY,
      PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'),
      SHUTDOWN_GRACE_MS: '5000',
    });
    const persona = (await (await fetch(`${server.url}/v1/personas`, { method: 'POST', headers, body: JSON.stringify({ name: 'Slow' }) })).json()) as { id: string };
    fake.setBehaviour({ mode: 'slow', delayMs: 1500, reply: 'made it' });
    const inFlight = fetch(`${server.url}/v1/refine`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ provider: 'openai', providerApiKey: 'provider-key-shutdown-1', personaId: persona.id, content: 'hi' }),
    });
    await fake.waitForRequests(1);
    const exited = server.stop('SIGTERM');
    await expect
      .poll(() => fetch(`${server.url}/healthz`, { headers: { connection: 'close' } }).then((res) => res.arrayBuffer().then(() => 'answered'), () => 'refused'))
      .toBe('refused');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: 'made it' });
    expect(await exited).toBe(0);
  });
});
