/** When a failed attempt is worth repeating, and how long to wait first. */
import type { PersonaRefineError } from './errors.js';

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/**
 * 429 and 503 say "come back later"; 502 is a provider hiccup; a network error may not have
 * reached the server at all. 504 is worth repeating too: a gateway or load balancer in front of
 * the service answers it for an instance that went away or a slow hop, and the service never
 * stores a 5xx under an Idempotency-Key, so the repeat really runs; the call's `timeoutMs` still
 * bounds the total wait. Its cost: a provider that timed out once may time out again, another
 * full provider timeout, which `maxRetries: 0` avoids. 409 only ever means "your first attempt
 * with this Idempotency-Key is still running", so it is worth waiting for when we sent one.
 * Everything else (other 4xx, 500) would fail the same way again.
 */
export function isRetryable(error: PersonaRefineError, sentIdempotencyKey: boolean): boolean {
  if (error.kind === 'network') return true;
  if (error.kind !== 'http') return false;
  return error.status === 429 || error.status === 502 || error.status === 503 || error.status === 504 ||
    (error.status === 409 && sentIdempotencyKey);
}

/** `Retry-After` as seconds: either delta-seconds or an HTTP date. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * Exponential backoff with "equal jitter" (half fixed, half random), so many clients failing
 * together spread out yet each still waits a meaningful minimum. A server's `Retry-After` is a
 * floor: it knows better than our guess.
 */
export function retryDelayMs(retry: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number {
  const exponential = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
}
