/**
 * The one place a failure becomes a response. Domain errors carry a code
 * (the storage layer's "unreachable" included); framework and plugin errors
 * are translated into the same codes through the errors table; anything else
 * is a bug and leaves as a generic 500 with the details only in the log.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { codeForClientStatus, DomainError, errorStatus, notFound } from '../errors.js';
import { openAiErrorBody, openAiStatus } from './openai-error.js';
import { validationMessage } from './validation.js';

/** The same answer for a path nothing serves, whether no route matched or a file server refused it. */
function routeNotFound(request: FastifyRequest): DomainError {
  const path = request.url.split('?')[0] ?? '';
  return notFound(`no route for ${request.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}`);
}

function fromFramework(error: FastifyError, request: FastifyRequest, bodyLimit: number): DomainError | undefined {
  if (error.validation) {
    return new DomainError('invalid_request', validationMessage(error.validation, error.validationContext));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('payload_too_large', `request body must be at most ${request.routeOptions.bodyLimit ?? bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError('unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('invalid_request', 'Content-Length does not match the request body');
  }
  const code = codeForClientStatus(error.statusCode);
  if (code === 'not_found') return routeNotFound(request);
  return code ? new DomainError(code, error.message) : undefined;
}

function toDomainError(error: unknown, request: FastifyRequest, bodyLimit: number): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (error instanceof Error) return fromFramework(error as FastifyError, request, bodyLimit);
  return undefined;
}

export function sendError(reply: FastifyReply, error: DomainError): FastifyReply {
  reply.headers(error.headers);
  if (error.source === 'provider') reply.header('x-error-source', 'provider');
  reply.type('application/json; charset=utf-8');
  // A route OpenAI's clients call answers in their shape (src/http/openai-error.ts); unmatched routes have no config.
  if (reply.request.routeOptions?.config?.errorBody === 'openai') {
    const status = openAiStatus(error);
    return reply.code(status).send(openAiErrorBody(error, status));
  }
  return reply.code(error.status).send({ error: error.status, message: error.message });
}

/** The DomainError an error is answered with, logged as every failed request is. */
export function answeredError(error: unknown, request: FastifyRequest, bodyLimit = 0): DomainError {
  const log: FastifyBaseLogger = request.log;
  const domain = toDomainError(error, request, bodyLimit);
  if (!domain) {
    log.error({ err: error }, 'unhandled error');
    return new DomainError('internal', 'internal error; the request id identifies it in our logs');
  }
  if (domain.status >= 500) log.warn({ err: domain.cause, code: domain.code, detail: domain.message }, 'request failed');
  return domain;
}

export function installErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error, request, reply) => sendError(reply, answeredError(error, request, bodyLimit)));

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, routeNotFound(request));
  });
}

/**
 * Errors Fastify raises before routing (a malformed URL such as `/v1/personas/%ZZ`)
 * skip the hooks, so this adds what every response carries and uses the same shape.
 */
export function frameworkErrorHandler(serviceVersion: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id).header('x-service-version', serviceVersion);
    const message = error.code === 'FST_ERR_BAD_URL' ? 'the URL is not validly percent-encoded' : 'the request could not be routed';
    sendError(reply, new DomainError('invalid_request', message));
  };
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [errorStatus.headers_too_large, 'request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [errorStatus.request_timeout, 'the request was not received in time'],
};

/**
 * Requests Node's HTTP parser rejects (malformed, oversized headers, too slow)
 * never reach Fastify's hooks; they are answered on the socket in the same shape.
 */
export function clientErrorHandler(serviceVersion: string) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (!socket.writable) return;
    const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [errorStatus.invalid_request, 'the request is not valid HTTP'];
    const body = JSON.stringify({ error: status, message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\n` +
        `X-Service-Version: ${serviceVersion}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
