/**
 * A server span per request, named by method and route template
 * (`POST /v1/refine`), continuing the caller's trace when a `traceparent`
 * header came in. It is made current just before the handler runs (after the
 * body was read, where the async context would otherwise be lost), and ends
 * when the response has been sent — for a stream, with its last event — or
 * when the client closed the connection first (499, `client_aborted`).
 */
import { type Context, context, diag, DiagLogLevel, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { onClientClosed } from '../http/client-closed.js';
import { errorStatus } from '../errors.js';

interface RequestTrace {
  span: Span;
  context: Context;
}

export function instrumentHttp(app: FastifyInstance, tracer: Tracer): void {
  // Export failures are the operator's business: they go to the service's log.
  diag.setLogger(
    {
      error: (message) => app.log.error(`opentelemetry: ${message}`),
      warn: (message) => app.log.warn(`opentelemetry: ${message}`),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  const traces = new WeakMap<FastifyRequest, RequestTrace>();

  const finish = (request: FastifyRequest, status: number, errorType?: string) => {
    const traced = traces.get(request);
    if (!traced) return;
    traces.delete(request);
    traced.span.setAttribute('http.response.status_code', status);
    const error = errorType ?? (status >= 500 ? String(status) : undefined);
    if (error !== undefined) {
      traced.span.setAttribute('error.type', error);
      traced.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    traced.span.end();
  };

  app.addHook('onRequest', (request, reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = request.routeOptions.url;
    const query = request.url.indexOf('?');
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'url.path': query === -1 ? request.url : request.url.slice(0, query),
          'persona_refine.request_id': request.id,
        },
      },
      parent,
    );
    traces.set(request, { span, context: trace.setSpan(parent, span) });
    onClientClosed(reply, () => finish(request, errorStatus.client_closed_request, 'client_aborted'));
    done();
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const traced = traces.get(request);
    if (traced) context.with(traced.context, done);
    else done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
}
