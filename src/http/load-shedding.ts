/**
 * Under overload, answer 503 at once instead of queueing without bound: when
 * the event loop lags or the heap nears its limit, new requests are shed with
 * Retry-After. Probes stay answerable so orchestrators see the pressure.
 */
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { unavailable } from '../errors.js';

export async function installLoadShedding(app: FastifyInstance, maxEventLoopDelayMs: number): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    maxHeapUsedBytes: Math.floor(getHeapStatistics().heap_size_limit * 0.9),
    sampleInterval: 250,
    exposeStatusRoute: false,
    // Rejecting hands the error to our error handler: the usual body, with Retry-After.
    pressureHandler: async (request, _reply, type) => {
      if (request.url === '/healthz' || request.url === '/metrics') return;
      throw unavailable(`the service is ${type === 'eventLoopDelay' ? 'overloaded' : 'low on memory'}; retry shortly`, 1);
    },
  });
}
