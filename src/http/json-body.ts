/**
 * JSON is the only body we accept. Fastify's strict parser (prototype
 * poisoning is an error) stays, with one leniency: many HTTP clients send
 * `Content-Type: application/json` on every request, so a bodiless GET or
 * DELETE is not a malformed JSON document.
 */
import type { FastifyInstance } from 'fastify';

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export function installJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && BODYLESS_METHODS.has(request.method)) {
      done(null, undefined);
      return;
    }
    parseJson(request, body, done);
  });
}
