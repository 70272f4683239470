/** A range of UTC days asked for by a report (GET /v1/usage, GET /v1/personas/{id}/quality): the rules written once. */
import { invalidRequest } from '../errors.js';

/** A longer range is a report, not a dashboard query: ask for it in pieces. */
export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

function parseDay(name: string, value: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!match || new Date(time).toISOString().slice(0, 10) !== value) {
    throw invalidRequest(`${name} must be a date as YYYY-MM-DD (UTC), e.g. 2026-11-01`);
  }
  return time;
}

/** `from`..`to` checked: real dates, from ≤ to, at most MAX_DAYS days; else the client's error saying which. */
export function checkedDayRange(from: string, to: string): { from: string; to: string } {
  const days = (parseDay('to', to) - parseDay('from', from)) / DAY_MS + 1;
  if (days < 1) throw invalidRequest('from must not be after to');
  if (days > MAX_DAYS) throw invalidRequest(`the range from..to must span at most ${MAX_DAYS} days`);
  return { from, to };
}

/** The UTC day `days` before the one of `now` (0: that day). */
export const daysBefore = (now: number, days: number) => new Date(now - days * DAY_MS).toISOString().slice(0, 10);
