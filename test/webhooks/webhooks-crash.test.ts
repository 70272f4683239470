/**
 * kill -9 between a change and its delivery (real server processes, a database that outlives
 * them): the event written with the change is delivered after the restart, signed, under the
 * webhook-id it had; a delivery cut off mid-request is sent again once its lease lapses.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { sqliteTarget, storageTargets } from '../helpers/storage-targets.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const KEY = 'prk_webhooks_crash_test_0123456789abcdefghijk';

interface Delivery {
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
}

const call = async (server: ServerProcess, path: string, init: { method?: string; body?: unknown } = {}) => {
  const res = await fetch(server.url + path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${KEY}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, json: (await res.json().catch(() => undefined)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

const onlyDelivery = async (server: ServerProcess, hookId: string): Promise<Delivery | undefined> => {
  const res = await call(server, `/v1/webhooks/${hookId}/deliveries`);
  expect(res.status).toBe(200);
  expect((res.json as Delivery[]).length).toBeLessThanOrEqual(1);
  return (res.json as Delivery[])[0];
};

/** A loopback port nothing listens on now, for a receiver started later on it. */
async function closedPort(): Promise<number> {
  const probe = await startWebhookReceiver();
  await probe.close();
  return probe.port;
}

const started: ServerProcess[] = [];
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(started.map((server) => server.stop('SIGKILL')));
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess(env, 20_000);
  started.push(server);
  return server;
}

async function receiverOn(port?: number): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver(port);
  receivers.push(receiver);
  return receiver;
}

const serverEnv = (databaseUrl: string, retrySchedule: string) => ({
  DATABASE_URL: databaseUrl,
  BOOTSTRAP_API_KEY: KEY,
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  // The lease is this plus 15 s: what a delivery cut off by a crash waits before it is sent again.
  WEBHOOK_TIMEOUT_MS: '1000',
  LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
});

async function subscribe(server: ServerProcess, url: string): Promise<{ id: string; secret: string }> {
  const created = await call(server, '/v1/webhooks', { method: 'POST', body: { url, events: ['persona.created'] } });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json as { id: string; secret: string };
}

async function createPersona(server: ServerProcess, name: string): Promise<string> {
  const created = await call(server, '/v1/personas', { method: 'POST', body: { name } });
  expect(created.status).toBe(201);
  return created.json.id as string;
}

describe.each(storageTargets)('webhooks across kill -9 on $engine', (target) => {
  it('a delivery whose first attempt found the receiver down is delivered after the restart, signed, with the same webhook-id', async () => {
    const database = await target.create();
    try {
      const port = await closedPort();
      // Waits long enough that the kill lands between attempts, never during one.
      const env = serverEnv(database.url, '3s,3s,3s,3s,3s,3s,3s,3s');
      const first = await start(env);
      const hook = await subscribe(first, `http://127.0.0.1:${port}/hook`);
      const personaId = await createPersona(first, 'Crash-proof');

      await expect.poll(async () => (await onlyDelivery(first, hook.id))?.attempts, { timeout: 10_000, interval: 50 }).toBe(1);
      const failed = (await onlyDelivery(first, hook.id))!;
      expect(failed).toMatchObject({ type: 'persona.created', status: 'pending', lastStatusCode: null, lastError: 'connection refused' });
      expect(failed.eventId).toMatch(/^msg_[0-9a-f]{32}$/);
      await first.stop('SIGKILL');

      const receiver = await receiverOn(port);
      const second = await start(env);
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      const [arrived] = receiver.received;
      expect(arrived!.headers['webhook-id']).toBe(failed.eventId);
      const verified = new Webhook(hook.secret).verify(arrived!.body, arrived!.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
      expect(verified).toMatchObject({ type: 'persona.created', data: { id: personaId, name: 'Crash-proof', version: 1 } });
      await expect.poll(async () => (await onlyDelivery(second, hook.id))?.status, { timeout: 10_000 }).toBe('delivered');
      expect(await onlyDelivery(second, hook.id)).toMatchObject({ eventId: failed.eventId, attempts: 2, lastStatusCode: 200, lastError: null });
      expect(receiver.received).toHaveLength(1);
      for (const server of [first, second]) expect(secretFragmentsIn(server.output(), hook.secret, 'whsec_'.length)).toEqual([]);
      process.stdout.write(`webhook crash (${target.engine}): delivered after the restart as ${failed.eventId} at attempt 2\n`);
      await second.stop();
    } finally {
      await database.remove();
    }
  });
});

describe('a delivery cut off by kill -9 mid-request (sqlite)', () => {
  it('is sent again by the restarted server once its lease lapses, under the same webhook-id, and ends delivered', async () => {
    const database = await sqliteTarget.create();
    try {
      const receiver = await receiverOn();
      receiver.answerWith('hold');
      const env = serverEnv(database.url, '1s');
      const first = await start(env);
      const hook = await subscribe(first, `${receiver.origin}/hook`);
      await createPersona(first, 'Cut off');
      await expect.poll(() => receiver.held.length, { timeout: 10_000, interval: 25 }).toBe(1);
      await first.stop('SIGKILL');
      const killedAt = Date.now();

      const second = await start(env);
      expect((await onlyDelivery(second, hook.id))!).toMatchObject({ status: 'pending', attempts: 0 });
      await expect.poll(() => receiver.received.length, { timeout: 25_000, interval: 100 }).toBe(2);
      const resentAfterMs = Date.now() - killedAt;
      // The dead instance's lease (its claim + timeout 1 s + 15 s; the kill came a moment after the claim) held it until then.
      expect(resentAfterMs).toBeGreaterThan(14_000);
      await expect.poll(async () => (await onlyDelivery(second, hook.id))?.status, { timeout: 10_000 }).toBe('delivered');
      const ids = receiver.received.map((request) => request.headers['webhook-id']);
      process.stdout.write(`webhook crash mid-request: sent again ${resentAfterMs} ms after the kill; webhook-ids ${ids.join(', ')}\n`);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
      for (const request of receiver.received) new Webhook(hook.secret).verify(request.body, request.headers as Record<string, string>);
      // The attempt the crash cut off was never recorded: the one that got its 200 is the first counted.
      expect(await onlyDelivery(second, hook.id)).toMatchObject({ eventId: ids[0], status: 'delivered', attempts: 1, lastStatusCode: 200 });
      await second.stop();
    } finally {
      await database.remove();
    }
  }, 60_000);
});
