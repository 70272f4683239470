/**
 * Each provider attempt as an OpenTelemetry client span, named and annotated
 * as the GenAI semantic conventions say (`chat <model>`, `gen_ai.*`), so the
 * dashboards built for other AI gateways read it. A streamed attempt's span
 * ends with its last piece, when the provider has reported its usage. With
 * tracing off the attempt is returned unwrapped.
 */
import { errorType, type TraceSpan, type Tracer } from '../tracing/tracer.js';
import type { Attempt, ProviderText } from './attempt.js';
import type { AnswerPiece, StreamedText } from './streamed-attempt.js';
import type { TokenUsage } from './wire/wire-format.js';

/** Our provider ids → the conventions' `gen_ai.system` values; an operator's own id is used as is. */
const GEN_AI_SYSTEMS: Record<string, string> = {
  google: 'gcp.gemini',
  mistral: 'mistral_ai',
};

function withSpan<T>(tracer: Tracer, providerId: string, model: string, attempt: Attempt<T>, succeeded: (value: T, span: TraceSpan) => T): Attempt<T> {
  const system = GEN_AI_SYSTEMS[providerId] ?? providerId;
  return async (signal) => {
    const span = tracer
      .start(`chat ${model}`, 'client')
      .set('gen_ai.operation.name', 'chat')
      .set('gen_ai.system', system)
      .set('gen_ai.provider.name', system)
      .set('gen_ai.request.model', model);
    let outcome;
    try {
      outcome = await attempt(signal);
    } catch (error) {
      // Aborted by the call's deadline or by the client: the call's own error says which.
      span.fail(signal.aborted ? 'aborted' : errorType(error)).end();
      throw error;
    }
    if (outcome.ok) return { ok: true, value: succeeded(outcome.value, span) };
    span.fail(outcome.failure.error.code).end();
    return outcome;
  };
}

const recordUsage = (span: TraceSpan, usage: Partial<TokenUsage> | undefined) =>
  span.set('gen_ai.usage.input_tokens', usage?.inputTokens).set('gen_ai.usage.output_tokens', usage?.outputTokens);

export function tracedAttempt(tracer: Tracer, providerId: string, model: string, attempt: Attempt<ProviderText>): Attempt<ProviderText> {
  if (!tracer.enabled) return attempt;
  return withSpan(tracer, providerId, model, attempt, (value, span) => {
    recordUsage(span, value.usage).end();
    return value;
  });
}

export function tracedStreamedAttempt(tracer: Tracer, providerId: string, model: string, attempt: Attempt<StreamedText>): Attempt<StreamedText> {
  if (!tracer.enabled) return attempt;
  return withSpan(tracer, providerId, model, attempt, (value, span) => ({ ...value, rest: untilLastPiece(value, span) }));
}

/**
 * The rest of the stream, ending the span at its last piece, at a failure, or when the
 * consumer stops early (`aborted`) — also before it ever asked for a piece, which a
 * generator function's `finally` would not see.
 */
function untilLastPiece(text: StreamedText, span: TraceSpan): AsyncGenerator<AnswerPiece, void, undefined> {
  let open = true;
  const end = (failure?: string) => {
    if (!open) return;
    open = false;
    recordUsage(span, text.usage());
    if (failure !== undefined) span.fail(failure);
    span.end();
  };
  const rest = text.rest;
  const pieces: AsyncGenerator<AnswerPiece, void, undefined> = {
    async next() {
      try {
        const next = await rest.next();
        if (next.done) end();
        return next;
      } catch (error) {
        end(errorType(error));
        throw error;
      }
    },
    async return(value) {
      end('aborted');
      return rest.return(value);
    },
    async throw(error: unknown) {
      end(errorType(error));
      return rest.throw(error);
    },
    [Symbol.asyncIterator]: () => pieces,
  };
  return pieces;
}
