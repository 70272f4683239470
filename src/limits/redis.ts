/**
 * The Redis connection for shared limits. Commands fail fast while Redis is
 * down (no offline queue) so callers fall back at once instead of hanging;
 * the client keeps reconnecting in the background.
 */
import type { Redis } from 'ioredis';

/** ioredis is loaded only when REDIS_URL is set. */
export async function connectRedis(url: string): Promise<Redis> {
  const { Redis: RedisClient } = await import('ioredis');
  const redis = new RedisClient(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Connection errors are reported through the limiter's fallback warning, not as crashes.
  redis.on('error', () => {});
  return redis;
}
