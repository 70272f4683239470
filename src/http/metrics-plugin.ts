/** Request metrics for every route, and GET /metrics to scrape them. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from '../metrics.js';

export function countRequest(metrics: Metrics, request: FastifyRequest, status: number, elapsedMs: number): void {
  // The route pattern, never the raw URL: ids and query strings would explode the label set.
  const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(status) };
  metrics.httpRequests.inc(labels);
  metrics.httpDuration.observe(labels, elapsedMs / 1000);
}

export function installMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    countRequest(metrics, request, reply.statusCode, reply.elapsedTime);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}
