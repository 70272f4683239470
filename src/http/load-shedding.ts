/**
 * Under overload, answer 503 at once instead of queueing without bound: when
 * the event loop lags or the heap nears its limit, new requests are shed with
 * Retry-After. Probes and metrics stay answerable so orchestrators see the pressure.
 *
 * The lag is measured from the moment the server listens, never before: start-up
 * work (loading modules, compiling schemas) lags the loop by design and says nothing
 * about load. @fastify/under-pressure measured from its registration, so a fresh
 * start on a busy machine shed its first requests while /healthz answered 200.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { unavailable } from '../errors.js';

const SAMPLE_INTERVAL_MS = 250;
const RESOLUTION_MS = 10;
const EXEMPT_ROUTES = new Set(['/healthz', '/metrics']);

export function installLoadShedding(app: FastifyInstance, maxEventLoopDelayMs: number): void {
  const maxHeapUsedBytes = Math.floor(getHeapStatistics().heap_size_limit * 0.9);
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let pressure: 'overloaded' | 'low on memory' | undefined;
  let lastSample = 0;
  let timer: NodeJS.Timeout | undefined;

  const sample = () => {
    const now = performance.now();
    // No delay recorded at all means the loop was blocked for the whole interval: its lateness is the lag.
    const lagMs = histogram.count > 0 ? histogram.mean / 1e6 - RESOLUTION_MS : now - lastSample - SAMPLE_INTERVAL_MS;
    histogram.reset();
    lastSample = now;
    if (maxEventLoopDelayMs > 0 && lagMs > maxEventLoopDelayMs) pressure = 'overloaded';
    else if (getHeapStatistics().used_heap_size > maxHeapUsedBytes) pressure = 'low on memory';
    else pressure = undefined;
  };

  app.addHook('onListen', (done) => {
    histogram.enable();
    lastSample = performance.now();
    timer = setInterval(sample, SAMPLE_INTERVAL_MS).unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(timer);
    histogram.disable();
    done();
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (pressure === undefined || EXEMPT_ROUTES.has(request.routeOptions.url ?? '')) return done();
    done(unavailable(`the service is ${pressure}; retry shortly`, 1));
  });
}
