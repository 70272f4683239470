/**
 * Webhooks under attack, on both engines: a name that resolves to an internal address (at
 * creation, and through DNS rebinding after it) is refused and nothing reaches the address;
 * the signing secret never appears in a log line, a delivery record, an answer, a metric or
 * the database; a receiver that never answers holds only its own endpoint's slots; and a
 * key's budget thresholds are told once each.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { databaseText } from '../helpers/database-text.js';
import { callerKey, refineEnv } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import type { ResolvedAddress } from '../../src/webhooks/webhook-sender.js';

const POLL = { timeout: 10_000 };
const PUBLIC = { address: '93.184.216.34', family: 4 };

describe.each(storageTargets)('webhooks under attack on $engine', (target) => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let slow: WebhookReceiver;
  let fake: FakeProviderServer;
  /** What each name resolves to, in turn (the last answer repeats): the test's DNS. */
  const dns = new Map<string, ResolvedAddress[][]>();
  const lookups: string[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    slow = await startWebhookReceiver();
    fake = await startFakeProviderServer();
    server = await startTestServer({
      target,
      env: refineEnv(fake, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT_MS: '20000' }),
      resolve: async (hostname) => {
        lookups.push(hostname);
        const answers = dns.get(hostname);
        if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return answers.length > 1 ? answers.shift()! : answers[0]!;
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await slow?.close();
    await fake?.close();
  });

  afterEach(async () => {
    for (const hook of await (await server.request('/v1/webhooks')).json()) await server.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' });
    for (const response of slow.held.splice(0)) response.destroy();
  });

  const create = (url: string, events: string[] = ['*']) => server.request('/v1/webhooks', { method: 'POST', json: { url, events } });
  const deliveries = async (id: string) => (await (await server.request(`/v1/webhooks/${id}/deliveries`)).json()) as Array<Record<string, unknown>>;

  it('refuses a name that resolves to an internal address when it is saved', async () => {
    dns.set('internal.example', [[{ address: '127.0.0.1', family: 4 }]]);
    dns.set('metadata.example', [[PUBLIC, { address: '169.254.169.254', family: 4 }]]);
    dns.set('mapped.example', [[{ address: '::ffff:10.0.0.7', family: 6 }]]);
    const cases: Array<[string, string]> = [
      ['https://internal.example/hook', 'host "internal.example" resolves to 127.0.0.1, which is a loopback address; only hosts in WEBHOOK_ALLOWED_HOSTS may be internal'],
      ['https://metadata.example/hook', 'host "metadata.example" resolves to 169.254.169.254, which is a link-local address; only hosts in WEBHOOK_ALLOWED_HOSTS may be internal'],
      ['https://mapped.example/hook', 'host "mapped.example" resolves to ::ffff:10.0.0.7, which is a private address; only hosts in WEBHOOK_ALLOWED_HOSTS may be internal'],
      // The listed host is an address: a name for it is not listed, and may not use http either.
      [`http://localhost:${receiver.port}/hook`, 'url must use https (http only for a host in WEBHOOK_ALLOWED_HOSTS)'],
    ];
    for (const [url, message] of cases) {
      const res = await create(url);
      expect(res.status, url).toBe(400);
      expect(await res.json()).toEqual({ error: 400, message });
    }
    expect(await (await server.request('/v1/webhooks')).json()).toEqual([]);
  });

  it('checks the address each connection uses: a name that rebinds to loopback after it was saved reaches nothing', async () => {
    receiver.received.length = 0;
    dns.set('rebind.example', [[PUBLIC], [{ address: '127.0.0.1', family: 4 }]]);
    const res = await create(`https://rebind.example:${receiver.port}/hook`, ['webhook.test']);
    expect(res.status).toBe(201);
    const hook = await res.json();
    expect((await server.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST' })).status).toBe(202);
    await expect.poll(async () => (await deliveries(hook.id))[0], POLL).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: 'host "rebind.example" resolves to 127.0.0.1, which is a loopback address; only hosts in WEBHOOK_ALLOWED_HOSTS may be internal',
    });
    expect(lookups.filter((name) => name === 'rebind.example').length).toBeGreaterThanOrEqual(2);
    expect(receiver.received).toHaveLength(0);
    await server.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' });
  });

  it('a receiver that never answers holds at most 4 of its own deliveries; another endpoint is served meanwhile', async () => {
    receiver.received.length = 0;
    slow.answerWith(...Array.from({ length: 20 }, () => 'hold' as const));
    const stuck = await (await create(`${slow.origin}/stuck`, ['persona.created'])).json();
    const healthy = await (await create(`${receiver.origin}/healthy`, ['persona.created'])).json();
    for (let i = 0; i < 10; i++) await server.request('/v1/personas', { method: 'POST', json: { name: `Burst ${i}`, attributes: {} } });
    await expect.poll(() => receiver.ofType('persona.created').length, POLL).toBe(10);
    expect(slow.held).toHaveLength(4);
    expect((await deliveries(stuck.id)).filter((d) => d.status === 'pending')).toHaveLength(10);
    for (const response of slow.held.splice(0)) response.writeHead(204).end();
    await expect.poll(async () => (await deliveries(stuck.id)).filter((d) => d.status === 'delivered').length, POLL).toBe(4);
    await server.request(`/v1/webhooks/${stuck.id}`, { method: 'DELETE' });
    await server.request(`/v1/webhooks/${healthy.id}`, { method: 'DELETE' });
  });

  it('a receiver answering megabytes is read no further than 64 KiB: a 2xx is delivered, a 5xx failed, and the connection is closed on it', async () => {
    const MiB = 1024 * 1024;
    receiver.large.length = 0;
    receiver.answerWith({ status: 200, bytes: 64 * MiB }, { status: 500, bytes: 64 * MiB });
    const endpoint = await (await create(`${receiver.origin}/chatty`, ['persona.created'])).json();
    await server.request('/v1/personas', { method: 'POST', json: { name: 'Chatty 1', attributes: {} } });
    await expect.poll(async () => (await deliveries(endpoint.id)).map((d) => d.status), POLL).toEqual(['delivered']);
    await server.request('/v1/personas', { method: 'POST', json: { name: 'Chatty 2', attributes: {} } });
    await expect.poll(async () => (await deliveries(endpoint.id)).map((d) => [d.status, d.lastStatusCode]), POLL).toEqual([
      ['pending', 500],
      ['delivered', 200],
    ]);
    // The sender stopped reading and closed each connection: the receiver never got its 64 MiB out
    // (what it did write is the 64 KiB read plus what the two sockets' buffers took).
    await expect.poll(() => receiver.large.length, POLL).toBe(2);
    for (const answer of receiver.large) {
      expect(answer.finished).toBe(false);
      expect(answer.written).toBeLessThan(32 * MiB);
    }
  });

  it('tells a key\'s 80 % and 100 % of tokensPerDay once each, for that day', async () => {
    receiver.received.length = 0;
    const hook = await (await create(`${receiver.origin}/budgets`, ['budget.threshold'])).json();
    const persona = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Budgeted', attributes: {} } })).json();
    const body = { provider: 'openai', providerApiKey: callerKey('openai'), personaId: persona.id, content: 'The desk moved to the third floor.' };
    const probe = await server.request('/v1/refine', { method: 'POST', json: body });
    const perRefine = [...(probe.headers.get('x-usage') ?? '').matchAll(/_tokens=(\d+)/g)].reduce((sum, [, n]) => sum + Number(n), 0);
    expect(perRefine).toBeGreaterThan(0);
    const key = await (await server.request('/v1/keys', { method: 'POST', json: { name: 'budgeted', scopes: ['refine'], limits: { tokensPerDay: perRefine * 5 } } })).json();
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await server.request('/v1/refine', { method: 'POST', key: key.secret, json: body })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    await expect.poll(() => receiver.ofType('budget.threshold').length, POLL).toBe(2);
    const day = new Date().toISOString().slice(0, 10);
    const events = receiver.ofType('budget.threshold').map((d) => d.event.data).sort((a, b) => Number(a.percent) - Number(b.percent));
    expect(events).toEqual([
      { keyId: key.id, limit: 'tokensPerDay', budget: perRefine * 5, percent: 80, used: perRefine * 4, day },
      { keyId: key.id, limit: 'tokensPerDay', budget: perRefine * 5, percent: 100, used: perRefine * 5, day },
    ]);
    for (const delivery of receiver.ofType('budget.threshold')) expect(new Webhook(hook.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toBeTruthy();
    await server.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' });
  });

  it('never shows the signing secret: not in a log line, a delivery, an answer, a metric or the database', async () => {
    receiver.received.length = 0;
    const seen: string[] = [];
    const record = async (res: Response) => {
      const text = await res.text();
      seen.push(text, JSON.stringify([...res.headers]));
      return text;
    };
    const created = await server.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.origin}/secret`, events: ['*'] } });
    const { id, secret: first } = JSON.parse(await created.text());
    const { secret: second } = await (await server.request(`/v1/webhooks/${id}/rotate-secret`, { method: 'POST' })).json();
    receiver.answerWith(500);
    await record(await server.request(`/v1/webhooks/${id}/test`, { method: 'POST' }));
    await server.request('/v1/personas', { method: 'POST', json: { name: 'Secretive', attributes: {} } });
    await expect.poll(() => receiver.received.length, POLL).toBe(2);
    await record(await server.request('/v1/webhooks'));
    await record(await server.request(`/v1/webhooks/${id}`));
    await record(await server.request(`/v1/webhooks/${id}/deliveries`));
    await record(await server.request(`/v1/webhooks/${id}`, { method: 'PATCH', json: { description: 'rotated' } }));
    await record(await server.request('/v1/audit'));
    await record(await server.request('/metrics', { key: null }));
    seen.push(...receiver.received.map((d) => d.body + JSON.stringify(d.headers)));
    const database = await databaseText(server);
    for (const secret of [first, second]) {
      expect(secretFragmentsIn(server.logs.join('\n'), secret, 'whsec_'.length)).toEqual([]);
      expect(secretFragmentsIn(seen.join('\n'), secret, 'whsec_'.length)).toEqual([]);
      expect(secretFragmentsIn(database, secret, 'whsec_'.length)).toEqual([]);
    }
  });
});
