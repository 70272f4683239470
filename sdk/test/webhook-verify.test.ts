/**
 * verifyWebhook against the `standardwebhooks` package, the specification's reference library:
 * what it signs verifies here; a changed body, another secret, a stale or future timestamp, a
 * missing header are refused with a message saying which; during a rotation either signature passes.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type WebhookEvent, WebhookVerificationError, verifyWebhook } from '../src/index.js';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const NOW = new Date('2026-11-28T12:00:00Z');
const body = JSON.stringify({ type: 'label.moved', timestamp: '2026-11-28T11:59:58.000Z', data: { personaId: 'p1', label: 'production', fromVersion: 6, toVersion: 7, keyId: 'key_1' } });

/** The headers a sender following the specification sends, signed by each secret in turn. */
function signed(secrets: string[], payload: string | Buffer = body, at = NOW, id = 'msg_0123456789abcdef0123456789abcdef') {
  const signature = secrets.map((secret) => new Webhook(secret).sign(id, at, payload)).join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
};

describe('verifyWebhook', () => {
  it('accepts what standardwebhooks signs and returns the event, typed by its type', async () => {
    const secret = newSecret();
    const event = await verifyWebhook(secret, signed([secret]), body, { now: NOW });
    expect(event).toEqual(JSON.parse(body));
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    if (event.type === 'label.moved') expectTypeOf(event.data.toVersion).toEqualTypeOf<number>();
    // standardwebhooks itself agrees on the same delivery.
    expect(new Webhook(secret).verify(body, signed([secret], body, new Date()))).toEqual(JSON.parse(body));
  });

  it('takes the body as bytes, and headers as a Headers or an object in any case', async () => {
    const secret = newSecret();
    const headers = signed([secret]);
    const bytes = new TextEncoder().encode(body);
    expect(await verifyWebhook(secret, new Headers(headers), bytes, { now: NOW })).toMatchObject({ type: 'label.moved' });
    const shouting = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(await verifyWebhook(secret, shouting, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
    // A repeated header: a list in a plain object, joined with ", " by Node's request.headers and by Headers.
    const repeated = ['v1,bm90IGl0', headers['webhook-signature']];
    expect(await verifyWebhook(secret, { ...headers, 'webhook-signature': repeated }, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
    expect(await verifyWebhook(secret, { ...headers, 'webhook-signature': repeated.join(', ') }, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
    const joined = new Headers(headers);
    joined.append('webhook-signature', 'v1,bm90IGl0');
    expect(await verifyWebhook(secret, joined, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
    // A Headers from a polyfill or another realm is not `instanceof Headers`, but has `get`.
    const lookalike = { get: (name: string) => (headers as Record<string, string>)[name] ?? null };
    expect(await verifyWebhook(secret, lookalike as unknown as Headers, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
  });

  it('verifies the raw bytes: non-ASCII text in the body and a body that is not UTF-8 text are signed byte for byte', async () => {
    const secret = newSecret();
    const unicode = JSON.stringify({ type: 'persona.updated', timestamp: NOW.toISOString(), data: { id: 'p', name: 'Zoë ☕', version: 2 } });
    expect((await verifyWebhook(secret, signed([secret], unicode), Buffer.from(unicode), { now: NOW })).data).toEqual({ id: 'p', name: 'Zoë ☕', version: 2 });
    // standardwebhooks decodes a Buffer to text before signing, so these bytes are signed with node:crypto.
    const latin1 = Buffer.from([0x7b, 0xe9, 0x7d]);
    const headers = signed([secret]);
    const mac = createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.`).update(latin1);
    const error = await refusal(verifyWebhook(secret, { ...headers, 'webhook-signature': `v1,${mac.digest('base64')}` }, latin1, { now: NOW }));
    expect([error.reason, error.message]).toEqual(['body', 'the signed body is not UTF-8 JSON']);
  });

  it('refuses a changed body, re-serialized JSON and another endpoint\'s secret', async () => {
    const secret = newSecret();
    const headers = signed([secret]);
    for (const changed of [body.replace('"toVersion":7', '"toVersion":8'), JSON.stringify(JSON.parse(body), null, 2), `${body} `]) {
      const error = await refusal(verifyWebhook(secret, headers, changed, { now: NOW }));
      expect(error.reason).toBe('signature');
      expect(error.message).toMatch(/^no signature in webhook-signature matches: the body is not the raw one received \(re-serialized JSON does not verify\)/);
    }
    expect((await refusal(verifyWebhook(newSecret(), headers, body, { now: NOW }))).reason).toBe('signature');
    // The signed content binds the id and the timestamp too.
    expect((await refusal(verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_other' }, body, { now: NOW }))).reason).toBe('signature');
  });

  it('refuses a timestamp outside the tolerance, 5 minutes by default, either way', async () => {
    const secret = newSecret();
    const old = signed([secret], body, new Date(NOW.getTime() - 301_000));
    expect((await refusal(verifyWebhook(secret, old, body, { now: NOW }))).message).toBe(
      'the webhook-timestamp is 301 s old, more than the 300 s tolerance: a replayed delivery, or this machine\'s clock is wrong',
    );
    expect(await verifyWebhook(secret, signed([secret], body, new Date(NOW.getTime() - 300_000)), body, { now: NOW })).toMatchObject({ type: 'label.moved' });
    const future = signed([secret], body, new Date(NOW.getTime() + 400_000));
    expect((await refusal(verifyWebhook(secret, future, body, { now: NOW }))).message).toBe(
      'the webhook-timestamp is 400 s in the future, more than the 300 s tolerance: this machine\'s clock is wrong',
    );
    expect(await verifyWebhook(secret, old, body, { now: NOW, toleranceSeconds: 600 })).toMatchObject({ type: 'label.moved' });
    expect((await refusal(verifyWebhook(secret, signed([secret]), body, { now: new Date(NOW.getTime() + 11_000), toleranceSeconds: 10 }))).reason).toBe('timestamp');
  });

  it('during a rotation a delivery carries two signatures, and either secret verifies it', async () => {
    const [previous, next] = [newSecret(), newSecret()];
    const headers = signed([next, previous]);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(await verifyWebhook(previous, headers, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
    expect(await verifyWebhook(next, headers, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
    expect((await refusal(verifyWebhook(newSecret(), headers, body, { now: NOW }))).reason).toBe('signature');
    // Signatures of other versions (v1a: asymmetric) are skipped, not misread.
    expect(await verifyWebhook(next, { ...headers, 'webhook-signature': `v1a,AAAA ${headers['webhook-signature']}` }, body, { now: NOW })).toMatchObject({ type: 'label.moved' });
  });

  it('names a missing or malformed header', async () => {
    const secret = newSecret();
    const headers = signed([secret]);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers;
      const error = await refusal(verifyWebhook(secret, rest, body, { now: NOW }));
      expect([error.reason, error.message]).toEqual(['missing-header', `the ${name} header is missing: not a signed webhook delivery`]);
    }
    const notSeconds = await refusal(verifyWebhook(secret, { ...headers, 'webhook-timestamp': '2026-11-28T12:00:00Z' }, body, { now: NOW }));
    expect(notSeconds.message).toBe('the webhook-timestamp header is not a Unix time in seconds: "2026-11-28T12:00:00Z"');
    const unversioned = await refusal(verifyWebhook(secret, { ...headers, 'webhook-signature': headers['webhook-signature'].slice(3) }, body, { now: NOW }));
    expect([unversioned.reason, unversioned.message]).toEqual(['invalid-header', 'the webhook-signature header holds no "v1,<base64>" signature']);
    expect((await refusal(verifyWebhook(secret, { ...headers, 'webhook-signature': 'v1,not base64!' }, body, { now: NOW }))).reason).toBe('signature');
  });

  it('a signed body that is not an event is refused', async () => {
    const secret = newSecret();
    const notAnEvent = JSON.stringify({ hello: 'world' });
    const error = await refusal(verifyWebhook(secret, signed([secret], notAnEvent), notAnEvent, { now: NOW }));
    expect([error.reason, error.message]).toEqual(['body', 'the signed body is not an event: {"type", "timestamp", "data"} expected']);
  });

  it('a secret that is not whsec_<base64> is a TypeError that does not repeat it', async () => {
    for (const wrong of ['prk_test_not_a_webhook_secret', `whsec_${'A'.repeat(5)}`, 'whsec_', '']) {
      const error = await verifyWebhook(wrong, signed([newSecret()]), body, { now: NOW }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe('verifyWebhook: the secret must be the endpoint\'s "whsec_<base64>" secret');
    }
  });
});
