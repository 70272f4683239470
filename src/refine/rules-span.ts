/** The persona's deterministic rules on a whole text, as one `rules` span with the count of what they could not fix. */
import { enforce, type PreservedOriginal } from '../rules/index.js';
import type { Tracer } from '../tracing/tracer.js';
import type { CompiledPersona } from './compiled-personas.js';

export function enforceInSpan(tracer: Tracer, persona: CompiledPersona, text: string, original: PreservedOriginal | undefined): ReturnType<typeof enforce> {
  const span = tracer.start('rules');
  const result = enforce(persona.rules, text, original);
  span.set('persona_refine.rules.violations', result.remaining.length).end();
  return result;
}
