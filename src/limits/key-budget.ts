/**
 * Per-key daily token budgets (docs/keys-and-scopes.md, "Budgets"), shared by every
 * instance through Redis when configured, else in this process.
 *
 * A refine reserves what it is estimated to spend before it calls a provider and
 * settles with what the providers reported. It is admitted only if the day's
 * spending, every reservation in flight and its own estimate fit the limit; when
 * they do not, it waits for the refines in flight, and with none in flight it is
 * refused. The estimate is the caller's (from the request) plus the largest amount
 * by which a refine of that budget exceeded its estimate today, so a persona's
 * prompt, a repair call or a judge that the request does not show are learned from
 * the first refine. The first refine of a day (nothing learned yet) runs alone.
 *
 * A refine spends against several budgets at once (its key's and those of the keys
 * it was created under): one admission reserves on all of them or on none.
 * Reservations expire after `reservationMs` so a crashed instance does not hold a
 * budget.
 */
import type { Redis } from 'ioredis';

/** One budget a refine spends against. */
export interface BudgetLine {
  keyId: string;
  limit: number;
}

export type Admission =
  /** `remaining`: the least any of the budgets has left before this refine. */
  | { admitted: true; remaining: number }
  /**
   * `line`: the index of the budget that refused; `used`: what it spent today; `size`: what the refine was
   * estimated to need of it. spent: nothing is left; busy: refines in flight may spend what is left (wait for
   * them); too_large: nothing is in flight and what is left does not cover the estimate.
   */
  | { admitted: false; line: number; used: number; size: number; reason: 'spent' | 'busy' | 'too_large' };

export interface BudgetStore {
  admit(lines: readonly BudgetLine[], day: string, reservationId: string, estimate: number, now: number): Promise<Admission>;
  /** Adds what the refine spent to every line and frees its reservation. */
  settle(lines: readonly BudgetLine[], day: string, reservationId: string | undefined, tokens: number, now: number): Promise<Settlement>;
  /** The least any line has left today, reserving nothing. */
  remaining(lines: readonly BudgetLine[], day: string): Promise<number>;
  /** True the first time it is called for this key, limit and window (budget.exceeded is written once). */
  firstExceeded(keyId: string, window: string): Promise<boolean>;
}

/** After a settle: the least any line has left, and what each line (in order) has used today, this refine included. */
export interface Settlement {
  remaining: number;
  used: number[];
}

interface LineState {
  used: number;
  /** Sum of the reservations in flight. */
  reserved: number;
  /** The most a settled refine spent over its estimate today. */
  excess: number;
  /** A refine that spent tokens settled today: `excess` means something. */
  seen: boolean;
  reservations: Map<string, { size: number; estimate: number; expiresAt: number }>;
}

type Decision = { ok: true; size: number } | { ok: false; reason: 'spent' | 'busy' | 'too_large'; size: number };

/** The rule, once: the Lua scripts below are the same decision for Redis. */
function decide(state: LineState, limit: number, estimate: number): Decision {
  const size = estimate + state.excess;
  if (state.used >= limit) return { ok: false, reason: 'spent', size };
  const inFlight = state.reservations.size;
  if (!state.seen && inFlight > 0) return { ok: false, reason: 'busy', size };
  if (state.used + state.reserved + size <= limit) return { ok: true, size };
  return { ok: false, reason: inFlight > 0 ? 'busy' : 'too_large', size };
}

export class MemoryBudgetStore implements BudgetStore {
  private day = '';
  private lines = new Map<string, LineState>();
  private exceeded = new Set<string>();

  constructor(private readonly reservationMs: number) {}

  private state(keyId: string, day: string, now?: number): LineState {
    const fresh = (): LineState => ({ used: 0, reserved: 0, excess: 0, seen: false, reservations: new Map() });
    if (day !== this.day) {
      // A new day forgets every count at once: memory stays bounded by one day of keys.
      if (day < this.day) return fresh();
      this.day = day;
      this.lines = new Map();
      this.exceeded = new Set();
    }
    let state = this.lines.get(keyId);
    if (!state) this.lines.set(keyId, (state = fresh()));
    if (now !== undefined) {
      for (const [id, reservation] of state.reservations) {
        if (reservation.expiresAt > now) continue;
        state.reservations.delete(id);
        state.reserved -= reservation.size;
      }
    }
    return state;
  }

  async admit(lines: readonly BudgetLine[], day: string, reservationId: string, estimate: number, now: number): Promise<Admission> {
    const states = lines.map(({ keyId }) => this.state(keyId, day, now));
    const sizes: number[] = [];
    for (const [index, state] of states.entries()) {
      const decision = decide(state, lines[index]!.limit, estimate);
      if (!decision.ok) return { admitted: false, line: index, used: state.used, size: decision.size, reason: decision.reason };
      sizes.push(decision.size);
    }
    states.forEach((state, index) => {
      state.reservations.set(reservationId, { size: sizes[index]!, estimate, expiresAt: now + this.reservationMs });
      state.reserved += sizes[index]!;
    });
    return { admitted: true, remaining: leastLeft(lines, states) };
  }

  async settle(lines: readonly BudgetLine[], day: string, reservationId: string | undefined, tokens: number): Promise<Settlement> {
    const states = lines.map(({ keyId }) => this.state(keyId, day));
    for (const state of states) {
      const reservation = reservationId === undefined ? undefined : state.reservations.get(reservationId);
      if (reservation) {
        state.reservations.delete(reservationId!);
        state.reserved -= reservation.size;
        if (tokens > 0) {
          state.seen = true;
          state.excess = Math.max(state.excess, tokens - reservation.estimate);
        }
      }
      state.used += tokens;
    }
    return { remaining: leastLeft(lines, states), used: states.map((state) => state.used) };
  }

  async remaining(lines: readonly BudgetLine[], day: string): Promise<number> {
    return leastLeft(lines, lines.map(({ keyId }) => this.state(keyId, day)));
  }

  async firstExceeded(keyId: string, window: string): Promise<boolean> {
    const id = `${keyId}:${window}`;
    if (this.exceeded.has(id)) return false;
    this.exceeded.add(id);
    return true;
  }
}

const leastLeft = (lines: readonly BudgetLine[], states: readonly { used: number }[]) =>
  Math.min(...lines.map(({ limit }, index) => limit - states[index]!.used));

const DAY_SECONDS = 2 * 86_400;

/*
 * KEYS: per line, its counts hash (used, reserved, excess, seen, and r:<id>/e:<id> for each
 * reservation's size and estimate) and its reservations sorted set (score = expiry).
 * ARGV: now, reservation id, reservation ms, key ttl, estimate, then each line's limit.
 * Returns {1, remaining} or {0, line (1-based), used, reason (0 spent, 1 busy, 2 too large), size}.
 */
const ADMIT = `
local now, id, ms, ttl, estimate = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local lines = #KEYS / 2
local sizes = {}
for i = 1, lines do
  local h, z = KEYS[2 * i - 1], KEYS[2 * i]
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', z, '-inf', now)) do
    redis.call('HINCRBY', h, 'reserved', -tonumber(redis.call('HGET', h, 'r:' .. old) or '0'))
    redis.call('HDEL', h, 'r:' .. old, 'e:' .. old)
  end
  redis.call('ZREMRANGEBYSCORE', z, '-inf', now)
  local limit = tonumber(ARGV[5 + i])
  local used = tonumber(redis.call('HGET', h, 'used') or '0')
  local reserved = tonumber(redis.call('HGET', h, 'reserved') or '0')
  local size = estimate + tonumber(redis.call('HGET', h, 'excess') or '0')
  local inFlight = redis.call('ZCARD', z)
  if used >= limit then return {0, i, used, 0, size} end
  if redis.call('HGET', h, 'seen') ~= '1' and inFlight > 0 then return {0, i, used, 1, size} end
  if used + reserved + size > limit then
    if inFlight > 0 then return {0, i, used, 1, size} end
    return {0, i, used, 2, size}
  end
  sizes[i] = size
end
local remaining = nil
for i = 1, lines do
  local h, z = KEYS[2 * i - 1], KEYS[2 * i]
  redis.call('ZADD', z, now + ms, id)
  redis.call('HINCRBY', h, 'reserved', sizes[i])
  redis.call('HSET', h, 'r:' .. id, sizes[i], 'e:' .. id, estimate)
  redis.call('EXPIRE', z, ttl)
  redis.call('EXPIRE', h, ttl)
  local left = tonumber(ARGV[5 + i]) - tonumber(redis.call('HGET', h, 'used') or '0')
  if remaining == nil or left < remaining then remaining = left end
end
return {1, remaining}`;

// KEYS: as ADMIT. ARGV: reservation id ('' for none), tokens, key ttl, then each line's limit. Returns the least left, then each line's use.
const SETTLE = `
local id, tokens, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local remaining = nil
local useds = {}
for i = 1, #KEYS / 2 do
  local h, z = KEYS[2 * i - 1], KEYS[2 * i]
  if id ~= '' and redis.call('ZREM', z, id) == 1 then
    local estimate = tonumber(redis.call('HGET', h, 'e:' .. id) or '0')
    redis.call('HINCRBY', h, 'reserved', -tonumber(redis.call('HGET', h, 'r:' .. id) or '0'))
    redis.call('HDEL', h, 'r:' .. id, 'e:' .. id)
    if tokens > 0 then
      redis.call('HSET', h, 'seen', '1')
      if tokens - estimate > tonumber(redis.call('HGET', h, 'excess') or '0') then redis.call('HSET', h, 'excess', tokens - estimate) end
    end
  end
  local used = redis.call('HINCRBY', h, 'used', tokens)
  redis.call('EXPIRE', h, ttl)
  useds[i] = used
  local left = tonumber(ARGV[3 + i]) - used
  if remaining == nil or left < remaining then remaining = left end
end
return {remaining, unpack(useds)}`;

// KEYS: each line's counts hash. ARGV: each line's limit.
const REMAINING = `
local remaining = nil
for i = 1, #KEYS do
  local left = tonumber(ARGV[i]) - tonumber(redis.call('HGET', KEYS[i], 'used') or '0')
  if remaining == nil or left < remaining then remaining = left end
end
return remaining`;

const countsKey = (keyId: string, day: string) => `prk:budget:${keyId}:${day}`;
const lineKeys = (lines: readonly BudgetLine[], day: string) =>
  lines.flatMap(({ keyId }) => [countsKey(keyId, day), `prk:budget:inflight:${keyId}:${day}`]);

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

  admit(lines: readonly BudgetLine[], day: string, reservationId: string, estimate: number, now: number): Promise<Admission> {
    return this.shared(
      async (): Promise<Admission> => {
        const keys = lineKeys(lines, day);
        const limits = lines.map(({ limit }) => limit);
        const answer = (await this.redis.eval(
          ADMIT, keys.length, ...keys, now, reservationId, this.reservationMs, DAY_SECONDS, estimate, ...limits,
        )) as number[];
        if (answer[0] === 1) return { admitted: true, remaining: Number(answer[1]) };
        const reasons = ['spent', 'busy', 'too_large'] as const;
        return { admitted: false, line: Number(answer[1]) - 1, used: Number(answer[2]), reason: reasons[Number(answer[3])]!, size: Number(answer[4]) };
      },
      () => this.fallback.admit(lines, day, reservationId, estimate, now),
    );
  }

  settle(lines: readonly BudgetLine[], day: string, reservationId: string | undefined, tokens: number, now: number): Promise<Settlement> {
    return this.shared(
      async () => {
        const keys = lineKeys(lines, day);
        const [remaining, ...used] = (await this.redis.eval(SETTLE, keys.length, ...keys, reservationId ?? '', tokens, DAY_SECONDS, ...lines.map(({ limit }) => limit))) as number[];
        return { remaining: Number(remaining), used: used.map(Number) };
      },
      () => this.fallback.settle(lines, day, reservationId, tokens, now),
    );
  }

  remaining(lines: readonly BudgetLine[], day: string): Promise<number> {
    return this.shared(
      async () => Number(await this.redis.eval(REMAINING, lines.length, ...lines.map(({ keyId }) => countsKey(keyId, day)), ...lines.map(({ limit }) => limit))),
      () => this.fallback.remaining(lines, day),
    );
  }

  firstExceeded(keyId: string, window: string): Promise<boolean> {
    return this.shared(
      async () => (await this.redis.set(`prk:budget:exceeded:${keyId}:${window}`, '1', 'EX', DAY_SECONDS, 'NX')) === 'OK',
      () => this.fallback.firstExceeded(keyId, window),
    );
  }
}
