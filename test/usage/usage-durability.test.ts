import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { startServerProcess } from '../helpers/server-process.js';
import { storageTargets } from '../helpers/storage-targets.js';

const KEY = 'prk_usage_durability_key_0123456789abcdefghijk';
const FLUSH_MS = 200;
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

describe.each(storageTargets)('usage counts across a crash on $engine', (target) => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await startFakeProviderServer();
  });
  afterAll(() => fake.close());

  const refines = async (url: string): Promise<number> => {
    const rows = (await (await fetch(`${url}/v1/usage`, { headers })).json()) as { refines: number }[];
    return rows.reduce((sum, row) => sum + row.refines, 0);
  };

  it(`kill -9 loses at most the last USAGE_FLUSH_MS (${FLUSH_MS} ms) of counting; SIGTERM loses nothing`, async () => {
    const database = await target.create();
    const env = { DATABASE_URL: database.url, BOOTSTRAP_API_KEY: KEY, USAGE_FLUSH_MS: String(FLUSH_MS), PROVIDER_BASE_URL_GROQ: fake.baseUrl('groq'), LOG_LEVEL: 'info' };
    try {
      const server = await startServerProcess(env);
      const persona = (await (await fetch(`${server.url}/v1/personas`, { method: 'POST', headers, body: '{"name":"Durable"}' })).json()) as { id: string };
      const body = JSON.stringify({ provider: 'groq', providerApiKey: 'gsk-durability-test-key', personaId: persona.id, content: 'Hello there.' });
      const answeredAt: number[] = [];
      let stop = false;
      const client = async () => {
        while (!stop) {
          try {
            const res = await fetch(`${server.url}/v1/refine`, { method: 'POST', headers, body });
            if (res.status === 200) answeredAt.push(Date.now());
            await res.arrayBuffer();
          } catch {
            return; // the server is gone
          }
        }
      };
      const clients = Array.from({ length: 4 }, client);
      // At least 1.5 s of counting, and enough answers to judge however slow the machine is.
      const started = Date.now();
      // sleeps because the test is about 1.5 s of counting before the kill (and polls for enough answers)
      while (Date.now() - started < 1_500 || (answeredAt.length <= 20 && Date.now() - started < 30_000)) await new Promise((resolve) => setTimeout(resolve, 50));
      const killedAt = Date.now();
      server.child.kill('SIGKILL');
      stop = true;
      await Promise.all(clients);

      const restarted = await startServerProcess(env);
      let afterCrash: number;
      try {
        afterCrash = await refines(restarted.url);
      } finally {
        await restarted.stop();
      }
      // Everything answered more than one interval (plus a flush's own time) before the kill was written.
      const surely = answeredAt.filter((at) => at < killedAt - 2 * FLUSH_MS).length;
      process.stdout.write(`usage crash test (${target.engine}): ${answeredAt.length} answered, ${afterCrash} counted after kill -9\n`);
      expect(answeredAt.length).toBeGreaterThan(20);
      expect(afterCrash).toBeGreaterThanOrEqual(surely);
      // Counted before its answer left: at most the requests in flight beyond the answered ones.
      expect(afterCrash).toBeLessThanOrEqual(answeredAt.length + 4);

      const graceful = await startServerProcess(env);
      for (let i = 0; i < 5; i++) expect((await fetch(`${graceful.url}/v1/refine`, { method: 'POST', headers, body })).status).toBe(200);
      expect(await graceful.stop('SIGTERM')).toBe(0);
      const again = await startServerProcess(env);
      try {
        expect(await refines(again.url)).toBe(afterCrash + 5);
      } finally {
        await again.stop();
      }
    } finally {
      await database.remove();
    }
  }, 60_000);
});
