/**
 * The refine use case as a stream: the provider's answer goes out as it arrives, with
 * the persona's deterministic fixes applied on the way (stream-refinement.ts). What
 * only a model can fix (avoid, maxWords, maxSentences, preserve) gets no repair call, since the
 * text is already shown: it is reported at the end instead.
 */
import type { Metrics } from '../metrics.js';
import type { ProviderRegistry, ProviderTextStream, TokenUsage } from '../providers/index.js';
import { hasRules, type PreservedOriginal, type RuleViolation } from '../rules/index.js';
import type { RefineBody } from '../schemas/refine.js';
import type { CompiledPersona } from './compiled-personas.js';
import { buildUserMessage } from './prompt.js';
import { StreamRefinement } from './stream-refinement.js';

export interface StreamEnd {
  /** Exactly the concatenation of the pieces. */
  response: string;
  violations: RuleViolation[];
  /** The tokens the provider reported; undefined for the rules provider or when it reported none. */
  usage: TokenUsage | undefined;
  /** The shown text is not a prefix of the final result (a bug): logged by the caller. */
  diverged: boolean;
}

export interface RefineStream {
  personaVersion: number;
  /**
   * The pieces of the refined text, returning the end. Throws the DomainError of a
   * failure after the first piece (or ClientAbortedError); `return()` stops the provider.
   */
  pieces: AsyncGenerator<string, StreamEnd, undefined>;
}

/** A result known at once (the rules provider, a replay) as a stream: the whole text, then the end. */
export async function* wholeText(end: Omit<StreamEnd, 'diverged'>): AsyncGenerator<string, StreamEnd, undefined> {
  if (end.response !== '') yield end.response;
  return { ...end, diverged: false };
}

export interface StreamDependencies {
  providers: ProviderRegistry;
  metrics: Metrics;
  timeoutMs: number;
}

/** Resolves once the provider's first text arrived; rejects like a non-streamed refine before that. */
export async function streamThroughProvider(
  { providers, metrics, timeoutMs }: StreamDependencies,
  persona: CompiledPersona,
  body: RefineBody & { providerApiKey: string },
  original: PreservedOriginal | undefined,
  signal: AbortSignal,
): Promise<RefineStream> {
  const started = performance.now();
  const labels = { provider: body.provider, outcome: 'ok' };
  const settle = (error?: unknown) => {
    if (error !== undefined) labels.outcome = (error as { code?: string }).code ?? 'unknown';
    metrics.refinesInFlight.dec();
    metrics.providerCalls.inc(labels);
    metrics.providerDuration.observe(labels, (performance.now() - started) / 1000);
  };
  metrics.refinesInFlight.inc();
  let stream: ProviderTextStream;
  try {
    stream = await providers.stream(
      body.provider,
      { apiKey: body.providerApiKey, model: body.model, system: persona.system, user: buildUserMessage(body.content), signal },
      { deadline: Date.now() + timeoutMs, timeoutMs },
    );
  } catch (error) {
    settle(error);
    throw error;
  }
  const refinement = new StreamRefinement(hasRules(persona.rules) ? persona.rules : undefined, original);
  async function* pieces(): AsyncGenerator<string, StreamEnd, undefined> {
    let failure: unknown;
    try {
      for await (const piece of stream.pieces) {
        const shown = refinement.push(piece);
        if (shown !== '') yield shown;
      }
      const end = refinement.finish();
      if (end.rest !== '') yield end.rest;
      return { response: end.response, violations: end.violations, usage: stream.usage(), diverged: end.diverged };
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // Stopped early by the reader (`return()`) also lands here: the provider stream is closed by the for-await.
      settle(failure);
    }
  }
  return { personaVersion: persona.version, pieces: pieces() };
}
