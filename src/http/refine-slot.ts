/**
 * What a request that pays a provider holds until its answer has ended (POST /v1/refine,
 * POST /v1/chat/completions): a slot of the account's concurrent refines, and a watch on its
 * client, whose leaving aborts the provider calls. A stream holds both until its last event.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rateLimited } from '../errors.js';
import type { ConcurrencyLimiter } from '../limits/concurrency-limiter.js';
import type { Metrics } from '../metrics.js';

export interface RefineSlot {
  /** Aborts when the client went away before its answer was written. */
  signal: AbortSignal;
  /** Frees the slot and stops watching the client; once, when the answer has ended. */
  release(): void;
}

export function holdRefineSlot(request: FastifyRequest, reply: FastifyReply, concurrency: ConcurrencyLimiter, metrics: Metrics): RefineSlot {
  const freeSlot = concurrency.tryAcquire(request.principal.accountId);
  if (!freeSlot) {
    metrics.rateLimitRejections.inc({ limit: 'concurrent_refines' });
    throw rateLimited('too many refines in flight for this account; retry when some finish', 1);
  }
  // The response closing before we finished writing means the client went away: stop paying the provider.
  const disconnected = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) disconnected.abort();
  };
  reply.raw.once('close', onClose);
  // Gone already (while the body arrived or a replay waited): do not start paying the provider.
  if (request.raw.socket.destroyed) disconnected.abort();
  return {
    signal: disconnected.signal,
    release: () => {
      reply.raw.off('close', onClose);
      freeSlot();
    },
  };
}
