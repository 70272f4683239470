/**
 * JSON is the only body we accept, parsed strictly: a `__proto__` or
 * `constructor.prototype` key is refused outright rather than stripped. One
 * leniency: many HTTP clients send `Content-Type: application/json` on every
 * request, so a bodiless GET or DELETE is not a malformed JSON document.
 */
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { DomainError, invalidRequest } from '../errors.js';
import { refuseNulInBody } from './storable-input.js';

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
const STRICT = { protoAction: 'error', constructorAction: 'error' } as const;

export function parseJsonBody(body: string): unknown {
  if (body === '') throw invalidRequest('request body is empty; send a JSON object');
  let parsed: unknown;
  try {
    parsed = secureJson.parse(body, undefined, STRICT);
  } catch (error) {
    if (error instanceof SyntaxError && /forbidden prototype property/.test(error.message)) {
      throw invalidRequest('request body must not contain "__proto__" or "constructor.prototype" keys');
    }
    throw invalidRequest('request body is not valid JSON');
  }
  refuseNulInBody(body, parsed);
  return parsed;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (idempotency compares requests by it). */
    rawBody: string | undefined;
  }
}

export function installJsonBody(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && BODYLESS_METHODS.has(request.method)) {
      done(null, undefined);
      return;
    }
    try {
      request.rawBody = body as string;
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Any other media type: fine without a body (a DELETE with Content-Length: 0), else 415.
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && BODYLESS_METHODS.has(request.method)) done(null, undefined);
    else done(new DomainError('unsupported_media_type', 'Content-Type must be application/json'), undefined);
  });
}
