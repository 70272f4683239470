/**
 * client.webhooks against a real server delivering to a receiver on loopback
 * (WEBHOOK_ALLOWED_HOSTS=127.0.0.1): every method, deliveries page by page and as one loop,
 * errors, the calls that must not be retried, and real deliveries checked with verifyWebhook.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES as SERVER_EVENT_TYPES, type WebhookEventData as ServerEventData } from '../../src/webhooks/webhook-events.js';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import {
  PermissionError,
  PersonaRefine,
  PersonaRefineError,
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  type WebhookEventData,
  WebhookVerificationError,
  verifyWebhook,
} from '../src/index.js';
import { startScriptedServer } from './helpers/scripted-server.js';

const POLL = { timeout: 10_000 };

describe('client.webhooks against a real server', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let client: PersonaRefine;
  const urlOf = (path: string) => `${receiver.origin}${path}`;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startTestServer({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('the event types and their data are the server\'s', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual(SERVER_EVENT_TYPES);
    expectTypeOf<WebhookEventData>().toEqualTypeOf<ServerEventData>();
  });

  it('creates, lists, gets, updates, disables, enables, rotates and deletes; the secret only in create and rotateSecret', async () => {
    const created = await client.webhooks.create({ url: urlOf('/crud'), events: ['persona.created', 'label.moved'], description: 'chat-ops' });
    expect(created).toMatchObject({ url: urlOf('/crud'), events: ['persona.created', 'label.moved'], description: 'chat-ops', disabled: false });
    expect(created.id).toMatch(/^wh_[0-9a-f]{32}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { secret, ...endpoint } = created;
    expect(await client.webhooks.list()).toContainEqual(endpoint);
    expect(await client.webhooks.get(created.id)).toEqual(endpoint);

    expect(await client.webhooks.update(created.id, { events: ['*'], description: null })).toEqual({ ...endpoint, events: ['*'], description: null });
    expect(await client.webhooks.update(created.id, { disabled: true })).toMatchObject({ disabled: true });
    const refused = await client.webhooks.test(created.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PersonaRefineError);
    expect(refused).toMatchObject({ status: 409, message: `webhook "${created.id}" is disabled; enable it with PATCH {"disabled": false} first` });
    expect(await client.webhooks.update(created.id, { disabled: false })).toMatchObject({ disabled: false });

    const rotated = await client.webhooks.rotateSecret(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    expect(JSON.stringify(await client.webhooks.list())).not.toContain(rotated.secret.slice(6, 20));

    await client.webhooks.delete(created.id);
    await expect(client.webhooks.get(created.id)).rejects.toMatchObject({ status: 404, message: `webhook "${created.id}" not found` });
    expect((await client.webhooks.list()).map((hook) => hook.id)).not.toContain(created.id);
  });

  it('a delivery the server sends verifies with verifyWebhook; changed, it does not', async () => {
    const hook = await client.webhooks.create({ url: urlOf('/verified'), events: ['persona.created'] });
    const persona = await client.personas.create({ name: 'Announced' });
    await expect.poll(() => receiver.received.filter((d) => d.event.data.id === persona.id).length, POLL).toBe(1);
    const delivery = receiver.received.find((d) => d.event.data.id === persona.id)!;

    const event = await verifyWebhook(hook.secret, delivery.headers, delivery.body);
    expect(event).toEqual({ type: 'persona.created', timestamp: expect.any(String), data: { id: persona.id, name: 'Announced', version: 1 } });
    if (event.type === 'persona.created') expectTypeOf(event.data.version).toEqualTypeOf<number>();
    expect(await verifyWebhook(hook.secret, new Headers(delivery.headers as Record<string, string>), Buffer.from(delivery.body))).toEqual(event);
    await expect(verifyWebhook(hook.secret, delivery.headers, delivery.body.replace('Announced', 'Forged'))).rejects.toBeInstanceOf(WebhookVerificationError);
    const later = new Date((Number(delivery.headers['webhook-timestamp']) + 301) * 1000);
    await expect(verifyWebhook(hook.secret, delivery.headers, delivery.body, { now: later })).rejects.toMatchObject({ reason: 'timestamp' });

    await expect.poll(async () => (await client.webhooks.deliveriesPage(hook.id)).deliveries.map((d) => [d.eventId, d.type, d.status]), POLL)
      .toEqual([[delivery.headers['webhook-id'], 'persona.created', 'delivered']]);
    await client.webhooks.delete(hook.id);
  });

  it('after rotateSecret a delivery carries two signatures, and the old and the new secret each verify it', async () => {
    const hook = await client.webhooks.create({ url: urlOf('/rotated'), events: ['webhook.test'] });
    const rotated = await client.webhooks.rotateSecret(hook.id);
    const test = await client.webhooks.test(hook.id);
    expect(test).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0 });
    await expect.poll(() => receiver.received.filter((d) => d.headers['webhook-id'] === test.eventId).length, POLL).toBe(1);
    const delivery = receiver.received.find((d) => d.headers['webhook-id'] === test.eventId)!;
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    for (const secret of [hook.secret, rotated.secret]) {
      expect(await verifyWebhook(secret, delivery.headers, delivery.body)).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
    }
    await client.webhooks.delete(hook.id);
  });

  it('deliveries: page by page with deliveriesPage, or every one with a for await loop that fetches only what it reads', async () => {
    const hook = await client.webhooks.create({ url: urlOf('/paged'), events: ['webhook.test'] });
    const sent: WebhookDelivery[] = [];
    for (let i = 0; i < 5; i++) sent.push(await client.webhooks.test(hook.id));
    const newestFirst = sent.map((d) => d.id).reverse();

    const pages: string[][] = [];
    for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
      const page = await client.webhooks.deliveriesPage(hook.id, { limit: 2, cursor });
      pages.push(page.deliveries.map((d) => d.id));
      cursor = page.nextCursor;
    }
    expect(pages).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);

    const all: string[] = [];
    for await (const delivery of client.webhooks.deliveries(hook.id, { pageSize: 2 })) all.push(delivery.id);
    expect(all).toEqual(newestFirst);

    const requested: string[] = [];
    const counting = new PersonaRefine({ apiKey: server.key, baseUrl: server.url, fetch: (input, init) => (requested.push(String(input)), fetch(input, init)) });
    const firstThree: string[] = [];
    for await (const delivery of counting.webhooks.deliveries(hook.id, { pageSize: 2 })) {
      firstThree.push(delivery.id);
      if (firstThree.length === 3) break;
    }
    expect(firstThree).toEqual(newestFirst.slice(0, 3));
    expect(requested).toHaveLength(2);
    await client.webhooks.delete(hook.id);
  });

  it('errors: an unknown id is a 404, a refused url a 400 saying why, a key without webhooks:admin a PermissionError', async () => {
    await expect(client.webhooks.deliveriesPage('wh_unknown')).rejects.toMatchObject({ status: 404, message: 'webhook "wh_unknown" not found' });
    await expect(client.webhooks.test('wh_unknown')).rejects.toMatchObject({ status: 404 });
    await expect(client.webhooks.create({ url: 'http://example.com/hook', events: ['*'] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('url must use https (http only for a host in WEBHOOK_ALLOWED_HOSTS)'),
    });
    const reader = await client.keys.create({ name: 'reader', scopes: ['personas:read'] });
    const error = await new PersonaRefine({ apiKey: reader.secret, baseUrl: server.url }).webhooks.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({ status: 403, scope: 'webhooks:admin' });
  });

  it('create, test and rotateSecret are never retried (a retry would add an endpoint, a test event or a rotation); reads are', async () => {
    const hook = await client.webhooks.create({ url: urlOf('/retries'), events: ['webhook.test'] });
    const busy = await startScriptedServer(() => ({ answer: { status: 503, body: { error: 'unavailable', message: 'busy' } } }));
    try {
      const flaky = new PersonaRefine({ apiKey: server.key, baseUrl: busy.url, maxRetries: 2 });
      for (const call of [() => flaky.webhooks.create({ url: urlOf('/x'), events: ['*'] }), () => flaky.webhooks.test(hook.id), () => flaky.webhooks.rotateSecret(hook.id)]) {
        const before = busy.seen.length;
        await expect(call()).rejects.toMatchObject({ status: 503 });
        expect(busy.seen.length - before).toBe(1);
      }
      const before = busy.seen.length;
      await expect(flaky.webhooks.list()).rejects.toMatchObject({ status: 503 });
      expect(busy.seen.length - before).toBe(3);
    } finally {
      await busy.close();
      await client.webhooks.delete(hook.id);
    }
  });
});
