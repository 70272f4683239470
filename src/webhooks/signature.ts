/**
 * Standard Webhooks signing (docs/webhooks.md, "Verifying a delivery"): `v1,` + base64 of
 * HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the secret's decoded
 * bytes; during a rotation's grace one signature per secret, space-separated.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => `${PREFIX}${randomBytes(24).toString('base64')}`;

const secretBytes = (secret: string) => Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');

export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}
