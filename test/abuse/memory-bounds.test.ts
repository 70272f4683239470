/**
 * One account trying to exhaust the memory every account shares, against the built server
 * as a real process (its RSS read from /proc), on both engines: the regular-expression
 * crash loop of personas at the term limits, and clients that ask for a large answer and
 * never read it. The process must stay under a stated bound, alive, and serving others.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliCreateAccount } from '../helpers/cli.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { storageTargets } from '../helpers/storage-targets.js';

const KEY = 'prk_memory_test_key_0123456789abcdefghijklmnop';
const MiB = 1024 * 1024;
/** The stated bounds: growth of the server's RSS over its settled size after start. */
// V8 collects compiled patterns lazily (a major GC), so the growth first rises well past the live set.
const CRASH_LOOP_GROWTH_BOUND = 256 * MiB;
const STALLED_READERS_GROWTH_BOUND = 160 * MiB;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe.each(storageTargets)('memory one tenant can hold, on $engine', (target) => {
  let server: ServerProcess;
  let remove: () => Promise<void>;
  let databaseUrl: string;
  const call = (path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
    fetch(server.url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${init.key ?? KEY}`, 'content-type': 'application/json' },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });

  beforeAll(async () => {
    const database = await target.create();
    remove = database.remove;
    databaseUrl = database.url;
    server = await startServerProcess({
      DATABASE_URL: database.url, BOOTSTRAP_API_KEY: KEY, LOG_LEVEL: 'info', SLOW_READER_TIMEOUT_MS: '3000', RATE_LIMIT_PER_MINUTE: '100000',
      // Memory is what is measured here: shedding (which the compile loop can trigger on a busy machine) would only skip work.
      LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await remove?.();
  });

  it('the rule-pattern crash loop: personas at the term limits, refined and checked one after another, stay within the bound', async () => {
    const pid = server.child.pid!;
    await call('/v1/personas');
    const start = rssOf(pid);
    const samples: number[] = [];
    // Distinct terms of 90 characters, 200 per list: the most a persona may hold, a new pattern every time.
    const terms = (persona: number, list: string) => Array.from({ length: 200 }, (_, i) => `${list}${persona}x${i}`.padEnd(90, 'q'));
    for (let persona = 0; persona < 60; persona++) {
      const attributes = { vocabulary: Object.fromEntries(terms(persona, 'v').map((term) => [term, 'ok'])), avoid: terms(persona, 'a') };
      const created = await call('/v1/personas', { method: 'POST', json: { name: `loop ${persona}`, attributes } });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const refined = await call('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId: id, content: 'Some text to refine, with a few words.' } });
      expect(refined.status).toBe(200);
      const checked = await call('/v1/check', { method: 'POST', json: { personaId: id, content: 'Some text to check.' } });
      expect(checked.status).toBe(200);
      samples.push(rssOf(pid));
    }
    const peak = Math.max(...samples);
    console.log(`crash loop on ${target.engine}: RSS start ${(start / MiB).toFixed(0)} MiB; every 10th persona: ${samples.filter((_, i) => i % 10 === 9).map((s) => (s / MiB).toFixed(0)).join(', ')} MiB; peak ${(peak / MiB).toFixed(0)} MiB`);
    expect(peak - start).toBeLessThan(CRASH_LOOP_GROWTH_BOUND);
    // Alive, and serving another account.
    const other = await cliCreateAccount(databaseUrl, `other-${target.engine}`);
    expect((await call('/v1/personas', { key: other.key })).status).toBe(200);
  }, 180_000);

  it('twenty clients that ask for a 16 MB list and never read hold little, are closed, and others are served meanwhile', async () => {
    const pid = server.child.pid!;
    const description = 'd'.repeat(60_000);
    const existing = ((await (await call('/v1/personas')).json()) as unknown[]).length;
    for (let batch = 0; batch < 27; batch++) {
      const created = await Promise.all(Array.from({ length: 10 }, (_, i) => call('/v1/personas', { method: 'POST', json: { name: `big ${batch}-${i}`, attributes: { description } } })));
      expect(created.map((res) => res.status)).toEqual(Array(10).fill(201));
    }
    expect(((await (await call('/v1/personas')).json()) as unknown[]).length).toBe(existing + 270);
    const start = rssOf(pid);
    const { port } = new URL(server.url);
    const sockets: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.pause(); // never reads
      socket.on('error', () => {});
      socket.write(`GET /v1/personas HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
      sockets.push(socket);
    }
    const samples: number[] = [];
    for (let i = 0; i < 10; i++) {
      // sleeps because the test is about 2 s of stalled readers: RSS is sampled as that time passes
      await new Promise((r) => setTimeout(r, 200));
      samples.push(rssOf(pid));
      // Everyone else is served meanwhile.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    }
    const peak = Math.max(...samples);
    console.log(`stalled readers on ${target.engine}: RSS start ${(start / MiB).toFixed(0)} MiB; while stalled ${samples.map((s) => (s / MiB).toFixed(0)).join(', ')} MiB`);
    expect(peak - start).toBeLessThan(STALLED_READERS_GROWTH_BOUND);
    // Closed by the server once SLOW_READER_TIMEOUT_MS (3 s) passed without progress (a client
    // that never reads never sees the close: what the kernel already took stays in its buffers).
    const closedCount = async () => Number(/persona_refine_slow_readers_closed_total (\d+)/.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1]);
    await expect.poll(closedCount, { timeout: 15_000, interval: 250 }).toBeGreaterThanOrEqual(20);
    for (const socket of sockets) socket.destroy();
  }, 120_000);
});
