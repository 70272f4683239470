/**
 * Prometheus metrics. One registry per app instance (tests build several apps
 * in one process). Labels are bounded sets — route patterns, status codes,
 * provider ids, error classes — never keys, content or persona data.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  providerCalls: Counter<'provider' | 'outcome'>;
  providerDuration: Histogram<'provider' | 'outcome'>;
  providerDurationLegacy: Histogram<'provider' | 'outcome'>;
  rateLimitRejections: Counter<'limit'>;
  refinesInFlight: Gauge;
  tokens: Counter<'provider' | 'model' | 'direction'>;
  slowReadersClosed: Counter;
  streamsReplaced: Counter;
  usageRowsDropped: Counter;
  webhookAttempts: Counter<'outcome'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: latencyBuckets,
      registers: [registry],
    }),
    providerCalls: new Counter({
      name: 'provider_calls_total',
      help: 'Calls to LLM providers, by provider and outcome (ok or the error class)',
      labelNames: ['provider', 'outcome'],
      registers: [registry],
    }),
    providerDuration: new Histogram({
      name: 'persona_refine_provider_call_duration_seconds',
      help: "Each provider's own time in a refine (its retries, and the repair call for the one that answered), by provider and outcome",
      labelNames: ['provider', 'outcome'],
      buckets: latencyBuckets,
      registers: [registry],
    }),
    providerDurationLegacy: new Histogram({
      name: 'provider_call_duration_seconds',
      help: 'Deprecated: the same observations as persona_refine_provider_call_duration_seconds, under the name dashboards used first',
      labelNames: ['provider', 'outcome'],
      buckets: latencyBuckets,
      registers: [registry],
    }),
    rateLimitRejections: new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused by our own limits (per-key rate, per-account concurrent refines, per-key refines_per_minute and tokens_per_day budgets)',
      labelNames: ['limit'],
      registers: [registry],
    }),
    refinesInFlight: new Gauge({
      name: 'refines_in_flight',
      help: 'Refine requests currently waiting on a provider',
      registers: [registry],
    }),
    tokens: new Counter({
      name: 'persona_refine_tokens_total',
      help: 'Tokens the providers reported, by provider, model and direction (input or output)',
      labelNames: ['provider', 'model', 'direction'],
      registers: [registry],
    }),
    slowReadersClosed: new Counter({
      name: 'persona_refine_slow_readers_closed_total',
      help: 'Connections closed because the client stopped reading its answer (SLOW_READER_TIMEOUT_MS)',
      registers: [registry],
    }),
    streamsReplaced: new Counter({
      name: 'persona_refine_streams_replaced_total',
      help: 'Streamed refines whose shown text was not a prefix of the result, so done carried the whole result (replaced: true); a bug',
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'persona_refine_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later) or failed (the last attempt failed)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    usageRowsDropped: new Counter({
      name: 'persona_refine_usage_rows_dropped_total',
      help: 'Usage rows the database refused (not for being unreachable) and that were dropped',
      registers: [registry],
    }),
  };
}
