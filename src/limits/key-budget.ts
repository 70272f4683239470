/**
 * Per-key daily token budgets (docs/keys-and-scopes.md, "Budgets"), shared by every
 * instance through Redis when configured, else in this process.
 *
 * A refine is admitted with a reservation and settled with what it spent. To
 * keep the overrun to at most one refine however many run at once, a refine is
 * admitted while others are in flight only if every one of them, and it, could
 * spend as much as the largest refine this key made today and still fit; the
 * first refine of a day (no size known yet) runs alone. A refine that cannot be
 * admitted because of refines in flight waits for them (a short while), then
 * gets a 429. Reservations expire after `reservationMs` so a crashed instance
 * does not hold a key's budget.
 */
import type { Redis } from 'ioredis';

export type Admission =
  | { admitted: true; used: number }
  /** `busy`: the budget is not spent, but refines in flight may spend it. */
  | { admitted: false; used: number; busy: boolean };

export interface BudgetStore {
  admit(keyId: string, day: string, limit: number, reservationId: string, now: number): Promise<Admission>;
  /** Adds what the refine spent and frees its reservation; returns the day's total. */
  settle(keyId: string, day: string, reservationId: string | undefined, tokens: number, now: number): Promise<number>;
  /** True the first time it is called for this key, limit and window (budget.exceeded is written once). */
  firstExceeded(keyId: string, window: string): Promise<boolean>;
}

/**
 * `largest` is only ever raised by a refine that spent tokens; one that spent
 * none (refused after admission, a replay, a cache hit) says nothing about how
 * large a refine can be, so an unknown or zero size runs alone.
 */
function decide(used: number, largest: number, inFlight: number, limit: number): Admission {
  if (used >= limit) return { admitted: false, used, busy: false };
  if (inFlight > 0 && (largest <= 0 || used + (inFlight + 1) * largest > limit)) return { admitted: false, used, busy: true };
  return { admitted: true, used };
}

export class MemoryBudgetStore implements BudgetStore {
  private day = '';
  private keys = new Map<string, { used: number; largest: number; reservations: Map<string, number> }>();
  private exceeded = new Set<string>();

  constructor(private readonly reservationMs: number) {}

  private entry(keyId: string, day: string) {
    if (day !== this.day) {
      // A new day forgets every count at once: memory stays bounded by one day of keys.
      if (day < this.day) return { used: 0, largest: -1, reservations: new Map<string, number>() };
      this.day = day;
      this.keys = new Map();
      this.exceeded = new Set();
    }
    let entry = this.keys.get(keyId);
    if (!entry) this.keys.set(keyId, (entry = { used: 0, largest: -1, reservations: new Map() }));
    return entry;
  }

  async admit(keyId: string, day: string, limit: number, reservationId: string, now: number): Promise<Admission> {
    const entry = this.entry(keyId, day);
    for (const [id, expiresAt] of entry.reservations) if (expiresAt <= now) entry.reservations.delete(id);
    const decision = decide(entry.used, entry.largest, entry.reservations.size, limit);
    if (decision.admitted) entry.reservations.set(reservationId, now + this.reservationMs);
    return decision;
  }

  async settle(keyId: string, day: string, reservationId: string | undefined, tokens: number): Promise<number> {
    const entry = this.entry(keyId, day);
    if (reservationId !== undefined) entry.reservations.delete(reservationId);
    entry.used += tokens;
    if (tokens > 0) entry.largest = Math.max(entry.largest, tokens);
    return entry.used;
  }

  async firstExceeded(keyId: string, window: string): Promise<boolean> {
    const id = `${keyId}:${window}`;
    if (this.exceeded.has(id)) return false;
    this.exceeded.add(id);
    return true;
  }
}

const DAY_SECONDS = 2 * 86_400;

// KEYS: counts hash (used, largest), reservations sorted set (score = expiry). ARGV: limit, now, reservation id, reservation ms, key ttl.
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
local used = tonumber(redis.call('HGET', KEYS[1], 'used') or '0')
local largest = tonumber(redis.call('HGET', KEYS[1], 'largest') or '-1')
local limit = tonumber(ARGV[1])
if used >= limit then return {0, used, 0} end
local inFlight = redis.call('ZCARD', KEYS[2])
if inFlight > 0 and (largest <= 0 or used + (inFlight + 1) * largest > limit) then return {0, used, 1} end
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[4]), ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return {1, used, 0}`;

// KEYS: counts hash, reservations. ARGV: reservation id ('' for none), tokens, key ttl.
const SETTLE = `
if ARGV[1] ~= '' then redis.call('ZREM', KEYS[2], ARGV[1]) end
local used = redis.call('HINCRBY', KEYS[1], 'used', ARGV[2])
local largest = tonumber(redis.call('HGET', KEYS[1], 'largest') or '-1')
if tonumber(ARGV[2]) > 0 and tonumber(ARGV[2]) > largest then redis.call('HSET', KEYS[1], 'largest', ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return used`;

/** Shared across instances; falls back to this process while Redis does not answer (logged once per outage). */
export class RedisBudgetStore implements BudgetStore {
  private degraded = false;

  constructor(
    private readonly redis: Redis,
    private readonly reservationMs: number,
    private readonly fallback: BudgetStore,
    private readonly warn: (message: string) => void,
  ) {}

  private async shared<T>(work: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      if (this.degraded) {
        this.degraded = false;
        this.warn('Redis is answering again; token budgets are shared across instances again');
      }
      return result;
    } catch {
      if (!this.degraded) {
        this.degraded = true;
        this.warn('Redis is unavailable; token budgets fall back to this instance until it returns');
      }
      return local();
    }
  }

  admit(keyId: string, day: string, limit: number, reservationId: string, now: number): Promise<Admission> {
    return this.shared(
      async () => {
        const [admitted, used, busy] = (await this.redis.eval(
          ADMIT, 2, `prk:budget:${keyId}:${day}`, `prk:budget:inflight:${keyId}:${day}`,
          limit, now, reservationId, this.reservationMs, DAY_SECONDS,
        )) as [number, number, number];
        return admitted === 1 ? { admitted: true, used: Number(used) } : { admitted: false, used: Number(used), busy: busy === 1 };
      },
      () => this.fallback.admit(keyId, day, limit, reservationId, now),
    );
  }

  settle(keyId: string, day: string, reservationId: string | undefined, tokens: number, now: number): Promise<number> {
    return this.shared(
      async () =>
        Number(await this.redis.eval(SETTLE, 2, `prk:budget:${keyId}:${day}`, `prk:budget:inflight:${keyId}:${day}`, reservationId ?? '', tokens, DAY_SECONDS)),
      () => this.fallback.settle(keyId, day, reservationId, tokens, now),
    );
  }

  firstExceeded(keyId: string, window: string): Promise<boolean> {
    return this.shared(
      async () => (await this.redis.set(`prk:budget:exceeded:${keyId}:${window}`, '1', 'EX', DAY_SECONDS, 'NX')) === 'OK',
      () => this.fallback.firstExceeded(keyId, window),
    );
  }
}
