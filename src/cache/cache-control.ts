/**
 * The request's `Cache-Control`, read as HTTP means it (RFC 9111 §5.2.1):
 * `max-age=N` accepts a stored answer at most N seconds old, `no-cache`
 * forces a fresh answer (and stores it), `no-store` neither reads nor
 * writes. Without one of these the cache is not involved at all. Other
 * directives are ignored, as a cache would.
 */
import { invalidRequest } from '../errors.js';

export interface CachePolicy {
  /** Oldest acceptable stored answer, in ms; undefined: do not read. */
  maxAgeMs: number | undefined;
  write: boolean;
}

export function parseCacheControl(header: string | undefined): CachePolicy | undefined {
  if (header === undefined) return undefined;
  let maxAgeSeconds: number | undefined;
  let noCache = false;
  let noStore = false;
  for (const raw of header.split(',')) {
    const directive = raw.trim();
    const separator = directive.indexOf('=');
    const name = (separator === -1 ? directive : directive.slice(0, separator)).trim().toLowerCase();
    if (name === 'no-store') noStore = true;
    else if (name === 'no-cache') noCache = true;
    else if (name === 'max-age') {
      // The quoted form is not valid for max-age but common enough to accept (RFC 9111 §5.2).
      const value = separator === -1 ? '' : directive.slice(separator + 1).trim().replace(/^"(.*)"$/, '$1');
      if (!/^\d{1,10}$/.test(value)) {
        throw invalidRequest('Cache-Control max-age must be a whole number of seconds, e.g. "Cache-Control: max-age=3600"');
      }
      // Repeated, the strictest wins.
      maxAgeSeconds = Math.min(maxAgeSeconds ?? Number.POSITIVE_INFINITY, Number(value));
    }
  }
  if (noStore) return { maxAgeMs: undefined, write: false };
  if (noCache) return { maxAgeMs: undefined, write: true };
  if (maxAgeSeconds !== undefined) return { maxAgeMs: maxAgeSeconds * 1000, write: true };
  return undefined;
}
