/**
 * Two real server processes on one database, as behind a load balancer (PostgreSQL, and SQLite
 * with both processes on one file as WORKERS > 1 runs it): both dispatchers claim from the same
 * outbox at once, and the receiver still gets each event exactly once, and each retry once.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { storageTargets } from '../helpers/storage-targets.js';

const KEY = 'prk_webhooks_two_instances_0123456789abcdefgh';
const PERSONAS = 30;
/** A creation and an update per persona. */
const EVENTS = PERSONAS * 2;

interface Request {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A receiver that answers each request by what it has seen of that webhook-id before. */
async function startReceiver(answer: (attemptsOfThisId: number) => number): Promise<{ origin: string; requests: Request[]; close(): Promise<void> }> {
  const requests: Request[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const status = answer(requests.filter((seen) => seen.id === id).length + 1);
      requests.push({ id, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered: status });
      response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The attempts this instance made, by outcome (its own counters: which instance sent what). */
async function attemptsOf(server: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/^persona_refine_webhook_attempts_total\{outcome="(\w+)"\} (\d+)$/gm)].map(([, outcome, n]) => [outcome!, Number(n)]));
}

const countBy = (ids: string[]) => {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
};

describe.each(storageTargets)('webhooks from two instances on one $engine database', (target) => {
  let database: Awaited<ReturnType<typeof target.create>>;
  let a: ServerProcess;
  let b: ServerProcess;

  const call = async (server: ServerProcess, path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(server.url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${KEY}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, json: (await res.json().catch(() => undefined)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const deliveries = async (hookId: string) => {
    const res = await call(a, `/v1/webhooks/${hookId}/deliveries?limit=1000`);
    expect(res.status).toBe(200);
    return res.json as Array<{ eventId: string; type: string; status: string; attempts: number; lastStatusCode: number | null }>;
  };

  /** 30 personas, each created on one instance and updated on the other, all at once: 60 events. */
  const makeChanges = async () => {
    const statuses = await Promise.all(
      Array.from({ length: PERSONAS }, async (_, i) => {
        const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
        const created = await call(first, '/v1/personas', { method: 'POST', body: { name: `p${i}`, attributes: { n: i } } });
        const updated = await call(second, `/v1/personas/${created.json.id}`, { method: 'PATCH', body: { attributes: { n: i, updated: true } } });
        return [created.status, updated.status];
      }),
    );
    expect(statuses.flat()).toEqual(Array(EVENTS).fill(0).map((_, i) => (i % 2 === 0 ? 201 : 200)));
  };

  const subscribe = async (origin: string) => {
    const created = await call(b, '/v1/webhooks', { method: 'POST', body: { url: `${origin}/hook`, events: ['*'] } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    return created.json as { id: string; secret: string };
  };

  beforeAll(async () => {
    database = await target.create();
    const env = {
      DATABASE_URL: database.url,
      BOOTSTRAP_API_KEY: KEY,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '200ms',
      // Both processes share two cores with the test runner: a busy loop must not turn requests away.
      LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
    };
    a = await startServerProcess(env, 20_000);
    b = await startServerProcess(env, 20_000);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.remove();
  });

  it('each event reaches the receiver exactly once, signed, every delivery delivered at its first attempt', async () => {
    const receiver = await startReceiver(() => 200);
    const hook = await subscribe(receiver.origin);
    try {
      await makeChanges();
      await expect.poll(async () => (await deliveries(hook.id)).filter((d) => d.status === 'delivered').length, { timeout: 20_000 }).toBe(EVENTS);

      const listed = await deliveries(hook.id);
      expect(listed).toHaveLength(EVENTS);
      expect(listed.filter((d) => d.type === 'persona.created')).toHaveLength(PERSONAS);
      expect(listed.filter((d) => d.type === 'persona.updated')).toHaveLength(PERSONAS);
      expect(listed.filter((d) => d.attempts !== 1 || d.lastStatusCode !== 200)).toEqual([]);
      const ids = receiver.requests.map((request) => request.id);
      const [byA, byB] = [await attemptsOf(a), await attemptsOf(b)];
      process.stdout.write(
        `two instances on ${target.engine}: ${EVENTS} events, ${receiver.requests.length} requests, ${new Set(ids).size} distinct webhook-ids; ` +
          `delivered by A ${byA.delivered ?? 0}, by B ${byB.delivered ?? 0}\n`,
      );
      // Both dispatchers took part: the claims raced.
      expect([byA.delivered ?? 0, byB.delivered ?? 0].every((n) => n > 0)).toBe(true);
      expect((byA.delivered ?? 0) + (byB.delivered ?? 0)).toBe(EVENTS);
      expect([...countBy(ids)].filter(([, count]) => count !== 1)).toEqual([]);
      expect(receiver.requests).toHaveLength(EVENTS);
      expect(new Set(ids)).toEqual(new Set(listed.map((d) => d.eventId)));
      const webhook = new Webhook(hook.secret);
      for (const request of receiver.requests) webhook.verify(request.body, request.headers as Record<string, string>);
    } finally {
      expect((await call(a, `/v1/webhooks/${hook.id}`, { method: 'DELETE' })).status).toBe(204);
      await receiver.close();
    }
  });

  it('with every first attempt refused (500), each event is sent twice: once refused, once delivered at its retry', async () => {
    const receiver = await startReceiver((attempt) => (attempt === 1 ? 500 : 200));
    try {
      const hook = await subscribe(receiver.origin);
      await makeChanges();
      await expect.poll(async () => (await deliveries(hook.id)).filter((d) => d.status !== 'pending').length, { timeout: 20_000 }).toBe(EVENTS);

      const listed = await deliveries(hook.id);
      expect(listed).toHaveLength(EVENTS);
      expect(listed.filter((d) => d.status !== 'delivered' || d.attempts !== 2 || d.lastStatusCode !== 200)).toEqual([]);
      const ids = receiver.requests.map((request) => request.id);
      const [byA, byB] = [await attemptsOf(a), await attemptsOf(b)];
      process.stdout.write(
        `two instances on ${target.engine}, first attempts refused: ${EVENTS} events, ${receiver.requests.length} requests; ` +
          `A: ${JSON.stringify(byA)}, B: ${JSON.stringify(byB)}\n`,
      );
      // Counted since start: the first test's deliveries too.
      expect((byA.retry ?? 0) + (byB.retry ?? 0)).toBe(EVENTS);
      expect((byA.delivered ?? 0) + (byB.delivered ?? 0)).toBe(EVENTS * 2);
      expect([...countBy(ids)].filter(([, count]) => count !== 2)).toEqual([]);
      expect(receiver.requests).toHaveLength(EVENTS * 2);
      expect(new Set(ids)).toEqual(new Set(listed.map((d) => d.eventId)));
      // Per id, the refused attempt and then the delivered one: a first attempt sent by both instances would be answered 500 and
      // 200, recorded once, and end with attempts 1 or a third request.
      for (const id of new Set(ids)) expect(receiver.requests.filter((request) => request.id === id).map((request) => request.answered)).toEqual([500, 200]);
      const webhook = new Webhook(hook.secret);
      for (const request of receiver.requests) webhook.verify(request.body, request.headers as Record<string, string>);
    } finally {
      await receiver.close();
    }
  });
});
