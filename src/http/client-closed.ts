/**
 * A client that closes its connection before its answer is written is nginx's 499
 * in the request log and in the request metrics: its own outcome, not a 400 and not
 * an error. Node emits no 'finish' for such a response, so Fastify's onResponse and
 * its completion log never run for it; without this the request would vanish from both.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorStatus } from '../errors.js';
import type { Metrics } from '../metrics.js';
import { countRequest } from './metrics-plugin.js';
import { requestLine } from './request-context.js';

/**
 * Calls `listener` once if the connection closes before the answer was fully written —
 * whether the client left while its body was still arriving or after it was read
 * (Fastify's onRequestAbort only sees the first).
 */
export function onClientClosed(reply: FastifyReply, listener: () => void): void {
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) listener();
  });
}

export function installClientClosed(app: FastifyInstance, metrics: Metrics): void {
  const status = errorStatus.client_closed_request;
  app.addHook('onRequest', (request, reply, done) => {
    onClientClosed(reply, () => {
      countRequest(metrics, request, status, reply.elapsedTime);
      reply.log.info(requestLine(request, reply, status), 'client closed the request');
    });
    done();
  });
}
