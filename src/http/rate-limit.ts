/** Per-key rate limiting on authenticated /v1 routes, with RateLimit-* headers on every answer. */
import type { FastifyInstance } from 'fastify';
import { rateLimited } from '../errors.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Metrics } from '../metrics.js';

export function installRateLimit(app: FastifyInstance, limiter: RateLimiter, metrics: Metrics): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.public) return;
    const decision = await limiter.hit(request.principal.keyId);
    reply.header('ratelimit-limit', decision.limit);
    reply.header('ratelimit-remaining', decision.remaining);
    reply.header('ratelimit-reset', decision.resetSeconds);
    if (!decision.allowed) {
      metrics.rateLimitRejections.inc({ limit: 'requests_per_minute' });
      throw rateLimited(
        `rate limit of ${decision.limit} requests per minute exceeded for this API key; retry in ${decision.resetSeconds} s`,
        decision.resetSeconds,
      );
    }
  });
}
