/**
 * A key's expiry (docs/keys-and-scopes.md, "Keys over HTTP"): read from a request, where a
 * bad one is a 400 before anything is written, and from storage, where one the service
 * cannot present counts as already past.
 */
import { invalidRequest } from '../errors.js';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))?$/i;

/**
 * An RFC 3339 date-time in UTC has a four-digit year: an offset can carry an instant written
 * in 9999 into 10000 (9999-12-31T23:59:59-23:59), which no answer could then present.
 */
const YEAR_10000 = Date.UTC(10_000, 0, 1);

/**
 * An RFC 3339 date-time with its zone (`Z` or an offset): without one it would
 * be read in the server's zone. The date must exist (2027-02-31 is refused,
 * not rolled over into March).
 */
export function parseExpiresAt(text: string): number {
  const match = DATE_TIME.exec(text);
  if (!match) throw invalidRequest('expiresAt must be a date-time, e.g. 2027-01-01T00:00:00Z');
  const [, year, month, day, hour, minute, second = '0', zone, offsetHours = '0', offsetMinutes = '0'] = match;
  if (zone === undefined) throw invalidRequest('expiresAt must carry a time zone (Z or an offset such as +02:00), e.g. 2027-01-01T00:00:00Z');
  const [y, mo, d, h, mi, se] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const calendar = new Date(Date.UTC(y, mo - 1, d));
  const exists = calendar.getUTCFullYear() === y && calendar.getUTCMonth() === mo - 1 && calendar.getUTCDate() === d;
  const time = Date.parse(text);
  if (!exists || h > 23 || mi > 59 || se > 59 || Number(offsetHours) > 23 || Number(offsetMinutes) > 59 || Number.isNaN(time)) {
    throw invalidRequest(`expiresAt ${JSON.stringify(text)} is not a real date and time`);
  }
  if (time >= YEAR_10000) throw invalidRequest(`expiresAt ${JSON.stringify(text)} is after the year 9999 in UTC; it must be before 10000-01-01T00:00:00Z`);
  return time;
}

/**
 * A stored expiry's instant, or undefined when it is not in the form this service writes
 * (`toISOString()` of an instant before the year 10000): such a row was written by something
 * else, and its key is treated as expired, never as one that does not expire.
 */
export function storedExpiry(stored: string): number | undefined {
  const time = Date.parse(stored);
  return time < YEAR_10000 && new Date(time).toISOString() === stored ? time : undefined;
}

/** Whether a stored expiry has passed at `now` (ms); one that cannot be read has. */
export function hasExpired(stored: string | null, now: number): boolean {
  if (stored === null) return false;
  const time = storedExpiry(stored);
  return time === undefined || time <= now;
}
