/**
 * Each provider attempt as an OpenTelemetry client span, named and annotated
 * as the GenAI semantic conventions say (`chat <model>`, `gen_ai.*`), so the
 * dashboards built for other AI gateways read it. With tracing off the attempt
 * is returned unwrapped.
 */
import { errorType, type Tracer } from '../tracing/tracer.js';
import type { Attempt, ProviderText } from './attempt.js';

/** Our provider ids → the conventions' `gen_ai.system` values; an operator's own id is used as is. */
const GEN_AI_SYSTEMS: Record<string, string> = {
  google: 'gcp.gemini',
  mistral: 'mistral_ai',
};

export function tracedAttempt(tracer: Tracer, providerId: string, model: string, attempt: Attempt<ProviderText>): Attempt<ProviderText> {
  if (!tracer.enabled) return attempt;
  const system = GEN_AI_SYSTEMS[providerId] ?? providerId;
  return async (signal) => {
    const span = tracer
      .start(`chat ${model}`, 'client')
      .set('gen_ai.operation.name', 'chat')
      .set('gen_ai.system', system)
      .set('gen_ai.provider.name', system)
      .set('gen_ai.request.model', model);
    try {
      const outcome = await attempt(signal);
      if (outcome.ok) {
        span.set('gen_ai.usage.input_tokens', outcome.value.usage?.inputTokens).set('gen_ai.usage.output_tokens', outcome.value.usage?.outputTokens);
      } else {
        span.fail(outcome.failure.error.code);
      }
      return outcome;
    } catch (error) {
      // Aborted by the call's deadline or by the client: the call's own error says which.
      span.fail(signal.aborted ? 'aborted' : errorType(error));
      throw error;
    } finally {
      span.end();
    }
  };
}
