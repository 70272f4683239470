/**
 * Checks a webhook delivery as the Standard Webhooks specification describes: the
 * `webhook-signature` header holds one or more `v1,<base64>` HMAC-SHA256 signatures of
 * `{webhook-id}.{webhook-timestamp}.{body}` under the secret's decoded bytes, and the timestamp
 * must be recent, so a captured delivery cannot be replayed later. Web Crypto only, so it runs in
 * browsers, Deno, Bun, edge runtimes and Node 20+.
 */
import type { WebhookEvent } from './webhook-events.js';

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Why a delivery was refused, for a receiver that answers or logs differently per cause. */
export type WebhookVerificationReason = 'missing-header' | 'invalid-header' | 'timestamp' | 'signature' | 'body';

/** The delivery did not verify: answer it with a 4xx and do not act on it. The message says why. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The time to judge the timestamp by; default the current time (tests pass a fixed one). */
  now?: Date;
  /**
   * The Web Crypto implementation; default `globalThis.crypto.subtle`. Node 18 has none without
   * `--experimental-global-webcrypto`: pass `(await import('node:crypto')).webcrypto.subtle` there.
   */
  subtle?: SubtleCrypto;
}

/** A `Headers` (fetch, Deno, edge runtimes) or a plain object such as Node's `request.headers`; names in any case. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Verifies a delivery and returns its event, typed by `type`. `body` must be the request's raw
 * body exactly as received (a string or its bytes): JSON parsed and serialized again differs in
 * spacing or key order and will not verify. `secret` is the endpoint's `whsec_…` secret; during a
 * rotation's 24-hour grace a delivery carries two signatures and either secret verifies it.
 * Throws a `WebhookVerificationError` for a missing or malformed header, a timestamp outside the
 * tolerance, or no matching signature, and a `TypeError` for a secret that is not `whsec_<base64>`.
 */
export async function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array, options: VerifyWebhookOptions = {}): Promise<WebhookEvent> {
  const key = secretBytes(secret);
  const id = requiredHeader(headers, 'webhook-id');
  const timestamp = requiredHeader(headers, 'webhook-timestamp');
  const signatures = requiredHeader(headers, 'webhook-signature');
  checkTimestamp(timestamp, options);
  // Space-separated; a trailing comma is dropped, as Node joins a repeated header with ", ".
  const candidates = signatures.split(/\s+/).filter((part) => part.startsWith('v1,')).map((part) => part.slice(3).replace(/,$/, ''));
  if (candidates.length === 0) throw new WebhookVerificationError('invalid-header', 'the webhook-signature header holds no "v1,<base64>" signature');

  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const expected = await hmacSha256(options.subtle ?? defaultSubtle(), key, concat(new TextEncoder().encode(`${id}.${timestamp}.`), bytes));
  if (!candidates.some((candidate) => constantTimeEqual(decodeBase64(candidate), expected))) {
    throw new WebhookVerificationError(
      'signature',
      'no signature in webhook-signature matches: the body is not the raw one received (re-serialized JSON does not verify), it was changed, or the secret is not this endpoint\'s',
    );
  }
  return eventOf(bytes);
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = typeof secret === 'string' && secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  const bytes = decodeBase64(encoded);
  // The secret itself is never part of a message: it would end up in a receiver's logs.
  if (bytes === undefined || bytes.length === 0) throw new TypeError('verifyWebhook: the secret must be the endpoint\'s "whsec_<base64>" secret');
  return bytes;
}

function requiredHeader(headers: WebhookHeaders, name: string): string {
  const value = headerOf(headers, name);
  if (value === undefined || value.trim() === '') throw new WebhookVerificationError('missing-header', `the ${name} header is missing: not a signed webhook delivery`);
  return value.trim();
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  // By shape, not `instanceof`: a polyfill's or another realm's Headers is one too.
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    values.push(...(typeof value === 'string' ? [value] : value));
  }
  // Repeated, signatures are all candidates; a repeated id or timestamp fails to verify.
  return values.length === 0 ? undefined : values.join(', ');
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('invalid-header', `the webhook-timestamp header is not a Unix time in seconds: ${JSON.stringify(timestamp.slice(0, 40))}`);
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const skew = Math.floor((options.now ?? new Date()).getTime() / 1000) - Number(timestamp);
  if (skew > tolerance) {
    throw new WebhookVerificationError('timestamp', `the webhook-timestamp is ${skew} s old, more than the ${tolerance} s tolerance: a replayed delivery, or this machine's clock is wrong`);
  }
  if (-skew > tolerance) {
    throw new WebhookVerificationError('timestamp', `the webhook-timestamp is ${-skew} s in the future, more than the ${tolerance} s tolerance: this machine's clock is wrong`);
  }
}

function eventOf(bytes: Uint8Array): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new WebhookVerificationError('body', 'the signed body is not UTF-8 JSON');
  }
  const { type, timestamp, data } = (typeof event === 'object' && event !== null ? event : {}) as Record<string, unknown>;
  if (typeof type !== 'string' || typeof timestamp !== 'string' || typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new WebhookVerificationError('body', 'the signed body is not an event: {"type", "timestamp", "data"} expected');
  }
  return { type, timestamp, data } as WebhookEvent;
}

function defaultSubtle(): SubtleCrypto {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (subtle === undefined) throw new TypeError('verifyWebhook: no Web Crypto here (globalThis.crypto.subtle); on Node 18 pass { subtle: (await import(\'node:crypto\')).webcrypto.subtle }');
  return subtle;
}

async function hmacSha256(subtle: SubtleCrypto, key: Uint8Array<ArrayBuffer>, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const imported = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', imported, message));
}

/** Compares every byte whatever differs first, so the time taken tells an attacker nothing of where. */
function constantTimeEqual(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (a === undefined || a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** undefined for anything but well-formed base64. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64.test(text) || text.length % 4 !== 0) return undefined;
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
