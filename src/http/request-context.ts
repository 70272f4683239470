/**
 * Request ids and the headers every response carries. A caller's own
 * X-Request-Id is echoed only when it is sane (bounded, printable), so it can
 * never smuggle control characters or megabytes into our logs.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, validateHeaderValue } from 'node:http';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { invalidRequest, unavailable } from '../errors.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export function installRequestContext(app: FastifyInstance, serviceVersion: string): void {
  let closing = false;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-service-version', serviceVersion);
    // A new request on a kept-alive connection after shutdown began: the usual 503 shape.
    if (closing) return done(unavailable('the service is shutting down; retry shortly', 1));
    // Node would answer this itself, with an empty body and none of our headers (requireHostHeader is off).
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return done(invalidRequest('the request has no Host header, which HTTP/1.1 requires'));
    }
    done();
  });

  // Shutting down: a keep-alive connection whose request finishes after close() began would
  // otherwise sit idle until its timeout and hold the process open past the grace period.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    dropUnsafeHeaders(request, reply);
    done(null, payload);
  });
}

/**
 * Every header value we write is safe by construction (values come from validated input),
 * and this is the guarantee behind it: a value Node would refuse to write (a control
 * character, a non-Latin-1 character) would otherwise turn a finished, maybe paid-for,
 * answer into Fastify's own 500 after it was stored for replay. Runs before the
 * idempotency hook stores the answer. Such a value is a bug: dropped and logged.
 */
function dropUnsafeHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const headers = reply.getHeaders();
  for (const name in headers) {
    const value = headers[name];
    try {
      if (Array.isArray(value)) for (const item of value) validateHeaderValue(name, item);
      else if (value !== undefined) validateHeaderValue(name, String(value));
    } catch {
      reply.removeHeader(name);
      request.log.error({ header: name }, 'dropped a response header whose value cannot be sent');
    }
  }
}

export const requestLine = (request: FastifyRequest, reply: FastifyReply, statusCode: number) => ({
  method: request.method,
  url: request.url,
  statusCode,
  ms: Math.round(reply.elapsedTime * 100) / 100,
});

/** One line per request instead of Fastify's two: cheaper, and it carries the status. */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = requestLine(request, reply, reply.statusCode);
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
