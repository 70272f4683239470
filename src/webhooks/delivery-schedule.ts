/**
 * When a delivery is tried again (docs/webhooks.md, "Retries"): the waits before each retry,
 * then `failed`; and when an endpoint that only fails is disabled.
 */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** 5 s, 30 s, 2 min, 10 min, 1 h, 6 h: seven attempts in all. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000];
/** Five days of nothing but failures disable an endpoint. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1s,2s,4s` → [1000, 2000, 4000]; undefined with the reason when an entry is not a duration. */
export function parseRetrySchedule(text: string): { schedule: number[] } | { problem: string } {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length > 20) return { problem: 'may list at most 20 waits' };
  const schedule: number[] = [];
  for (const entry of entries) {
    const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(entry);
    const wait = match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
    if (!(wait >= 0 && wait <= 7 * 86_400_000)) return { problem: `has "${entry}": each wait is a number and a unit (ms, s, m, h, d) of at most 7 days, like 5s or 2m` };
    schedule.push(wait);
  }
  return { schedule };
}

/** After `attempts` failed attempts: when to try again, or undefined when the delivery has failed for good. */
export function nextAttemptAfter(schedule: readonly number[], attempts: number, now: number): number | undefined {
  const wait = schedule[attempts - 1];
  return wait === undefined ? undefined : now + wait;
}
