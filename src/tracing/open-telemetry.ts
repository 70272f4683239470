/**
 * The OpenTelemetry side of tracer.ts: a tracer provider exporting over OTLP/HTTP
 * (protobuf or JSON) in batches, W3C trace context, and AsyncLocalStorage so a
 * span started anywhere in a request finds its parent. Imported only when
 * tracing is configured (start-tracing.ts).
 */
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config.js';
import { instrumentHttp } from './http-spans.js';
import type { HttpTracer } from './http-tracer.js';
import type { SpanValue, TraceSpan } from './tracer.js';

class OpenTelemetrySpan implements TraceSpan {
  constructor(readonly span: Span) {}

  set(key: string, value: SpanValue | undefined): TraceSpan {
    if (value !== undefined) this.span.setAttribute(key, value);
    return this;
  }

  fail(errorType: string): TraceSpan {
    this.span.setAttribute('error.type', errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
    return this;
  }

  end(): void {
    this.span.end();
  }
}

async function exporterFor(config: TracingConfig): Promise<SpanExporter> {
  const options = { url: config.url, headers: config.headers };
  if (config.protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
}

export async function openTelemetryTracer(config: TracingConfig, serviceVersion: string): Promise<HttpTracer> {
  const provider = new TracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName, 'service.version': serviceVersion }),
    ),
    spanProcessors: [new BatchSpanProcessor({ exporter: await exporterFor(config), scheduledDelayMillis: config.exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('persona-refine', serviceVersion);

  return {
    enabled: true,
    start: (name, kind = 'internal') =>
      new OpenTelemetrySpan(tracer.startSpan(name, { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL })),
    within: (span, work) => context.with(trace.setSpan(context.active(), (span as OpenTelemetrySpan).span), work),
    instrument: (app) => instrumentHttp(app, tracer),
    shutdown: () => provider.shutdown(),
  };
}
