/**
 * Fixed-window rate limiting per API key. In-process by default; in Redis when
 * REDIS_URL is set so every instance spends the same budget. If Redis stops
 * answering, limits fall back to this process (logged once per outage) rather
 * than failing requests, and return to Redis when it answers again.
 */
import type { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  /** `limit` overrides the limiter's own (a key's `refinesPerMinute`). */
  hit(key: string, limit?: number): Promise<RateDecision>;
}

const WINDOW_MS = 60_000;

function decide(limit: number, count: number, windowEndsAt: number, now: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowEndsAt - now) / 1000)),
  };
}

export class MemoryRateLimiter implements RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  async hit(key: string, limit = this.limit, now = Date.now()): Promise<RateDecision> {
    const windowStart = now - (now % WINDOW_MS);
    if (windowStart !== this.windowStart) {
      // A new window forgets every count at once: memory stays bounded by one minute of keys.
      this.windowStart = windowStart;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return decide(limit, count, windowStart + WINDOW_MS, now);
  }
}

// INCR and set the expiry in one round trip, atomically, on first use of a window key.
const INCREMENT = `local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n`;

export class RedisRateLimiter implements RateLimiter {
  private degraded = false;

  constructor(
    private readonly redis: Redis,
    private readonly limit: number,
    private readonly fallback: RateLimiter,
    private readonly warn: (message: string) => void,
  ) {}

  async hit(key: string, limit = this.limit, now = Date.now()): Promise<RateDecision> {
    const windowStart = now - (now % WINDOW_MS);
    try {
      const count = Number(await this.redis.eval(INCREMENT, 1, `prk:rl:${key}:${windowStart}`, WINDOW_MS + 1000));
      if (this.degraded) {
        this.degraded = false;
        this.warn('Redis is answering again; rate limits are shared across instances again');
      }
      return decide(limit, count, windowStart + WINDOW_MS, now);
    } catch {
      if (!this.degraded) {
        this.degraded = true;
        this.warn('Redis is unavailable; rate limits fall back to this instance until it returns');
      }
      return this.fallback.hit(key, limit);
    }
  }
}
