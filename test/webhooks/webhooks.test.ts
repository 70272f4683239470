/**
 * Signed webhooks against a real receiver on loopback, on both engines: the contract of
 * /v1/webhooks, every event type arriving signed and verifying with the `standardwebhooks`
 * package, subscriptions, retries that keep the webhook-id, failing for good, disabling after
 * five days (by the server's clock), rotation's two signatures, and redirects and timeouts.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { SteppedClock } from '../helpers/stepped-clock.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const POLL = { timeout: 10_000 };

const verify = (secret: string, delivery: ReceivedDelivery) =>
  new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };

describe.each(storageTargets)('webhooks on $engine', (target) => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  const clock = new SteppedClock();

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startTestServer({
      target,
      clock,
      env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1m,1m,1m', WEBHOOK_TIMEOUT_MS: '500', PROVIDER_BASE_URL_OPENAI: 'http://127.0.0.1:1' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });
  afterEach(async () => {
    clock.reset();
    receiver.answerWith();
    for (const hook of await (await server.request('/v1/webhooks')).json()) await server.request(`/v1/webhooks/${hook.id}`, { method: 'DELETE' });
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await server.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.origin}/hook`, events: ['*'], ...body } });
    const json = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(201);
    return json as { id: string; secret: string; url: string };
  };
  const deliveries = async (id: string) => (await (await server.request(`/v1/webhooks/${id}/deliveries`)).json()) as Array<Record<string, unknown>>;
  const persona = async (name: string) => (await (await server.request('/v1/personas', { method: 'POST', json: { name, attributes: { tone: 'plain' } } })).json()).id as string;

  it('creates an endpoint: 201 with the secret once (whsec_ + base64 of 24 bytes); reads never show it', async () => {
    const res = await server.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.origin}/a`, events: ['persona.created'], description: 'chat-ops' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = await res.json();
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'description', 'disabled', 'events', 'id', 'secret', 'url']);
    expect(created).toMatchObject({ url: `${receiver.origin}/a`, events: ['persona.created'], description: 'chat-ops', disabled: false });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(24);
    const reads = [await server.request('/v1/webhooks'), await server.request(`/v1/webhooks/${created.id}`)];
    for (const read of reads) {
      expect(read.status).toBe(200);
      const text = await read.text();
      expect(text).not.toContain(created.secret);
      expect(text).not.toContain(created.secret.slice(6, 20));
    }
    const patched = await server.request(`/v1/webhooks/${created.id}`, { method: 'PATCH', json: { events: ['*'], description: null } });
    expect(await patched.json()).toMatchObject({ id: created.id, events: ['*'], description: null });
    expect((await server.request(`/v1/webhooks/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await server.request(`/v1/webhooks/${created.id}`)).status).toBe(404);
    expect((await server.request(`/v1/webhooks/${created.id}/deliveries`)).status).toBe(404);
  });

  it('needs webhooks:admin, and keeps each account to its own endpoints', async () => {
    const hook = await create({});
    const reader = await (await server.request('/v1/keys', { method: 'POST', json: { name: 'reader', scopes: ['personas:read'] } })).json();
    const refused = await server.request('/v1/webhooks', { key: reader.secret });
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toBe('this key lacks the scope "webhooks:admin"');
    const admin = await (await server.request('/v1/keys', { method: 'POST', json: { name: 'hooks', scopes: ['webhooks:admin'] } })).json();
    expect((await server.request('/v1/webhooks', { key: admin.secret })).status).toBe(200);
    const other = await server.createAccount(`other-${target.engine}`);
    expect(await (await server.request('/v1/webhooks', { key: other })).json()).toEqual([]);
    for (const path of ['', '/deliveries']) expect((await server.request(`/v1/webhooks/${hook.id}${path}`, { key: other })).status).toBe(404);
    expect((await server.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST', key: other })).status).toBe(404);
  });

  it('refuses what it cannot send to safely, each with a clear 400', async () => {
    const cases: Array<[string, RegExp]> = [
      ['http://example.com/hook', /^url must use https \(http only for a host in WEBHOOK_ALLOWED_HOSTS\)$/],
      ['https://localhost:8443/hook', /^host "localhost" is a loopback name/],
      ['https://10.1.2.3/hook', /^address 10\.1\.2\.3 is a private address; only hosts in WEBHOOK_ALLOWED_HOSTS may be internal$/],
      ['https://169.254.169.254/latest/meta-data', /^address 169\.254\.169\.254 is a link-local address/],
      ['https://[::1]/hook', /^address ::1 is a loopback address/],
      ['https://[::ffff:127.0.0.1]/hook', /^address ::ffff:7f00:1 is a loopback address|loopback/],
      ['https://0.0.0.0/hook', /unspecified/],
      ['https://224.0.0.1/hook', /multicast/],
      ['https://user:pass@example.com/hook', /^url may not carry a user name or password$/],
      ['ftp://example.com/hook', /^url must use https/],
      ['not a url', /^url must be an absolute https URL$/],
    ];
    for (const [url, message] of cases) {
      const res = await server.request('/v1/webhooks', { method: 'POST', json: { url, events: ['*'] } });
      const body = await res.json();
      expect(res.status, url).toBe(400);
      expect(body.error).toBe(400);
      expect(body.message, url).toMatch(message);
    }
    const badEvent = await server.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.origin}/x`, events: ['persona.renamed'] } });
    expect(badEvent.status).toBe(400);
    const noEvents = await server.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.origin}/x`, events: [] } });
    expect(noEvents.status).toBe(400);
    const hook = await create({});
    const badPatch = await server.request(`/v1/webhooks/${hook.id}`, { method: 'PATCH', json: { url: 'http://example.com/' } });
    expect(badPatch.status).toBe(400);
    expect(await (await server.request('/v1/webhooks')).json()).toHaveLength(1);
  });

  it('keeps an account to 20 endpoints (409), also when 25 are asked for at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) => server.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.origin}/${i}`, events: ['*'] } })),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const refused = answers.find((res) => res.status === 409)!;
    expect((await refused.json()).message).toBe('this account already has 20 webhook endpoints, the most it may have; delete one before adding another');
    expect(await (await server.request('/v1/webhooks')).json()).toHaveLength(20);
  });

  it('sends every event type signed, verifiable with standardwebhooks, to the endpoints that subscribed to it', async () => {
    receiver.received.length = 0;
    const all = await create({});
    const keysOnly = await create({ url: `${receiver.origin}/keys-only`, events: ['key.created'] });
    const before = receiver.received.length;
    expect(before).toBe(0);

    const id = await persona('Announcer');
    expect((await server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: { tone: 'warm' } } })).status).toBe(200);
    await server.request(`/v1/personas/${id}/labels/staging`, { method: 'PUT', json: { version: 2 } });
    await server.request(`/v1/personas/${id}/labels/beta/policy`, { method: 'PUT', json: { minScore: 90 } });
    const refused = await server.request(`/v1/personas/${id}/labels/beta`, { method: 'PUT', json: { version: 2 } });
    expect(refused.status).toBe(409);
    const refusal = (await refused.json()).message;
    await server.request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'Hello there.' }] } });
    const completed = await (await server.request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'rules' } })).json();
    const failed = await (await server.request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'openai', providerApiKey: 'sk-FAKE-not-a-key-webhooks' } })).json();
    for (const run of [completed, failed]) {
      await expect.poll(async () => (await (await server.request(`/v1/personas/${id}/evals/${run.id}`)).json()).status, POLL).not.toMatch(/queued|running/);
    }
    const key = await (await server.request('/v1/keys', { method: 'POST', json: { name: 'short-lived', scopes: ['refine'] } })).json();
    await server.request(`/v1/keys/${key.id}`, { method: 'DELETE' });
    await server.request(`/v1/personas/${id}`, { method: 'DELETE' });
    await server.request(`/v1/webhooks/${all.id}/test`, { method: 'POST' });

    const types = ['persona.created', 'persona.updated', 'label.moved', 'label.refused', 'eval.completed', 'eval.failed', 'key.created', 'key.revoked', 'persona.deleted', 'webhook.test'];
    await expect.poll(() => [...new Set(receiver.received.map((d) => d.event.type))].sort(), POLL).toEqual([...types].sort());
    await expect.poll(async () => (await deliveries(all.id)).filter((d) => d.status === 'delivered').length, POLL).toBe(types.length);

    const received = receiver.received;
    const byType = (type: string) => received.filter((d) => d.event.type === type);
    for (const type of types) expect(byType(type).length, type).toBeGreaterThanOrEqual(1);
    // key.created went to both endpoints; everything else only to the one subscribed to all.
    expect(byType('key.created')).toHaveLength(2);
    expect(received).toHaveLength(types.length + 1);
    for (const delivery of received) {
      const secret = delivery === byType('key.created').find((d) => verifies(keysOnly.secret, d)) ? keysOnly.secret : all.secret;
      const event = verify(secret, delivery);
      expect(event.type).toBe(delivery.event.type);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['user-agent']).toMatch(/^persona-refine-webhooks\/\d+\.\d+\.\d+$/);
      expect(delivery.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(Object.keys(delivery.event).sort()).toEqual(['data', 'timestamp', 'type']);
    }
    const data = (type: string) => byType(type)[0]!.event.data;
    expect(data('persona.created')).toEqual({ id, name: 'Announcer', version: 1 });
    expect(data('persona.updated')).toEqual({ id, name: 'Announcer', version: 2 });
    expect(data('persona.deleted')).toEqual({ id, name: 'Announcer', version: 2 });
    expect(data('label.moved')).toEqual({ personaId: id, label: 'staging', fromVersion: null, toVersion: 2, keyId: expect.any(String) });
    expect(data('label.refused')).toEqual({ personaId: id, label: 'beta', version: 2, reason: refusal, keyId: expect.any(String) });
    expect(data('eval.completed')).toMatchObject({ personaId: id, evalId: completed.id, version: 2, summary: expect.any(Object) });
    expect(data('eval.failed')).toMatchObject({ personaId: id, evalId: failed.id, version: 2, status: 'failed', summary: expect.any(Object) });
    expect(data('key.created')).toEqual({ keyId: key.id, name: 'short-lived', by: expect.any(String) });
    expect(data('key.revoked')).toEqual({ keyId: key.id, name: 'short-lived', by: expect.any(String) });
    expect(data('webhook.test')).toEqual({ webhookId: all.id });
  });

  it('retries a failed delivery with the same webhook-id and body, then marks it failed after the schedule', async () => {
    receiver.received.length = 0;
    const hook = await create({ events: ['persona.created'] });
    receiver.answerWith(500, 503, 404, 500);
    await persona('Retried');
    await expect.poll(() => receiver.received.length, POLL).toBe(1);
    await expect.poll(async () => (await deliveries(hook.id))[0], POLL).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'answered 500' });
    const [first] = await deliveries(hook.id);
    expect(Date.parse(first!.nextAttemptAt as string) - clock.now()).toBeGreaterThan(50_000);
    for (let attempt = 2; attempt <= 4; attempt++) {
      clock.step(61_000);
      await server.webhooks.drain();
      expect(receiver.received).toHaveLength(attempt);
    }
    const ids = new Set(receiver.received.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(new Set(receiver.received.map((d) => d.body)).size).toBe(1);
    for (const delivery of receiver.received) expect(verify(hook.secret, delivery).type).toBe('persona.created');
    expect((await deliveries(hook.id))[0]).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: 500, lastError: 'answered 500', nextAttemptAt: null });
    const metrics = await (await server.request('/metrics', { key: null })).text();
    expect(metrics).toMatch(/persona_refine_webhook_attempts_total\{outcome="retry"\} [3-9]/);
    expect(metrics).toMatch(/persona_refine_webhook_attempts_total\{outcome="failed"\} [1-9]/);
    expect(server.logs.join('\n')).toContain('"msg":"webhook delivery failed for good"');
  });

  it('a redirect is a failure, not followed; a receiver that does not answer in time is a failure too', async () => {
    receiver.received.length = 0;
    const hook = await create({ events: ['persona.created'] });
    receiver.answerWith(302, 'hold');
    await persona('Redirected');
    await expect.poll(async () => (await deliveries(hook.id))[0], POLL).toMatchObject({ attempts: 1, lastStatusCode: 302, lastError: 'answered 302: redirects are not followed' });
    clock.step(61_000);
    await server.webhooks.drain();
    expect((await deliveries(hook.id))[0]).toMatchObject({ status: 'pending', attempts: 2, lastStatusCode: null, lastError: 'no answer within 0.5 s' });
    expect(receiver.received).toHaveLength(2);
  });

  it('disables an endpoint after five days of nothing but failures; PATCH disabled:false enables it again', async () => {
    const hook = await create({ events: ['persona.created'] });
    receiver.answerWith(500, 500, 500, 500, 500, 500);
    await persona('Failing 1');
    await expect.poll(async () => (await deliveries(hook.id))[0]?.attempts, POLL).toBe(1);
    clock.step(3 * 86_400_000);
    await persona('Failing 2');
    // The second event's first attempt, and the first event's retry (due a minute after its first).
    await expect.poll(async () => (await deliveries(hook.id)).map((d) => d.attempts).join(), POLL).toBe('1,2');
    expect((await (await server.request(`/v1/webhooks/${hook.id}`)).json()).disabled).toBe(false);
    clock.step(2 * 86_400_000 + 1_000);
    await server.webhooks.drain();
    const endpoint = await (await server.request(`/v1/webhooks/${hook.id}`)).json();
    expect(endpoint.disabled).toBe(true);
    expect((await deliveries(hook.id)).every((d) => d.status === 'failed')).toBe(true);
    expect((await deliveries(hook.id)).some((d) => d.lastError === 'endpoint disabled after five days of failed deliveries')).toBe(true);
    const test = await server.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST' });
    expect(test.status).toBe(409);
    const count = receiver.received.length;
    await persona('While disabled');
    expect(await deliveries(hook.id)).toHaveLength(2);
    const enabled = await server.request(`/v1/webhooks/${hook.id}`, { method: 'PATCH', json: { disabled: false } });
    expect((await enabled.json()).disabled).toBe(false);
    await persona('Enabled again');
    await expect.poll(() => receiver.received.length, POLL).toBe(count + 1);
    expect(receiver.received.at(-1)!.event.data.name).toBe('Enabled again');
  });

  it('rotating the secret signs with both for 24 h, then with the new one alone', async () => {
    receiver.received.length = 0;
    const hook = await create({ events: ['webhook.test'] });
    const rotated = await server.request(`/v1/webhooks/${hook.id}/rotate-secret`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const { secret } = await rotated.json();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    const test = await server.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST' });
    expect(test.status).toBe(202);
    expect(await test.json()).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0 });
    await expect.poll(() => receiver.received.length, POLL).toBe(1);
    const during = receiver.received[0]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(secret, during).type).toBe('webhook.test');
    expect(verify(hook.secret, during).type).toBe('webhook.test');
    clock.step(24 * 3_600_000 + 1_000);
    await server.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST' });
    await server.webhooks.drain();
    await expect.poll(() => receiver.received.length, POLL).toBe(2);
    const after = receiver.received[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    // The receiver's clock is the wall clock, the server's is a day ahead: verified by hand, not by the library's tolerance.
    const { createHmac } = await import('node:crypto');
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${after.headers['webhook-id']}.${after.headers['webhook-timestamp']}.${after.body}`)
      .digest('base64');
    expect(after.headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('pages deliveries newest first with a Link to the next page', async () => {
    const hook = await create({ events: ['webhook.test'] });
    for (let i = 0; i < 5; i++) expect((await server.request(`/v1/webhooks/${hook.id}/test`, { method: 'POST' })).status).toBe(202);
    const first = await server.request(`/v1/webhooks/${hook.id}/deliveries?limit=2`);
    const page1 = await first.json();
    expect(page1).toHaveLength(2);
    const link = first.headers.get('link')!;
    expect(link).toMatch(new RegExp(`^</v1/webhooks/${hook.id}/deliveries\\?limit=2&cursor=whd_[0-9a-f]{32}>; rel="next"$`));
    const seen = [...page1];
    let next: string | undefined = /<([^>]+)>/.exec(link)![1];
    while (next) {
      const res = await server.request(next);
      seen.push(...(await res.json()));
      next = /<([^>]+)>/.exec(res.headers.get('link') ?? '')?.[1];
    }
    expect(seen).toHaveLength(5);
    expect(seen.map((d) => d.id)).toEqual([...seen.map((d) => d.id)].sort().reverse());
  });
});

function verifies(secret: string, delivery: ReceivedDelivery): boolean {
  try {
    verify(secret, delivery);
    return true;
  } catch {
    return false;
  }
}
