/**
 * What traced code sees: spans it can annotate and end. With tracing off (the
 * default) `noTracing` hands out one shared do-nothing span, so the hot path
 * pays a property read and an empty call, and no OpenTelemetry module is loaded.
 * Attribute values are ids, counts, model names and error classes — never a
 * key, content or a persona's attributes.
 *
 * No Fastify here: the domain (refine, providers) takes this interface, and the
 * HTTP side's `HttpTracer` (http-tracer.ts) adds request spans to it
 * (docs/architecture.md, "The domain owns its types").
 */

export type SpanValue = string | number | boolean;

export interface TraceSpan {
  set(key: string, value: SpanValue | undefined): TraceSpan;
  /** Marks the span failed with an error class (`error.type`), e.g. `provider_timeout`. */
  fail(errorType: string): TraceSpan;
  end(): void;
}

export interface Tracer {
  readonly enabled: boolean;
  /** A span under the current one (the request's, or the one `within` made current). */
  start(name: string, kind?: 'internal' | 'client'): TraceSpan;
  /** Runs `work` with `span` as the parent of the spans started inside it. */
  within<T>(span: TraceSpan, work: () => T): T;
  /** Exports what is buffered; at shutdown. */
  shutdown(): Promise<void>;
}

const NO_SPAN: TraceSpan = {
  set: () => NO_SPAN,
  fail: () => NO_SPAN,
  end: () => {},
};

export const noTracing: Tracer = {
  enabled: false,
  start: () => NO_SPAN,
  within: (_span, work) => work(),
  shutdown: async () => {},
};

/** The class of a failure for `error.type`: a domain error's code, else the error's name. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown';
}

/** `work`, ending `span` when it settles. With tracing off, `work` itself: no extra tick. */
export function traced<T>(span: TraceSpan, work: Promise<T>): Promise<T> {
  if (span === NO_SPAN) return work;
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.fail(errorType(error)).end();
      throw error;
    },
  );
}
