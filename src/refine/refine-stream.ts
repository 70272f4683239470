/**
 * The refine use case as a stream: the provider's answer goes out as it arrives, with
 * the persona's deterministic fixes applied on the way (stream-refinement.ts). What
 * only a model can fix (avoid, maxWords, maxSentences, preserve) gets no repair call, since the
 * text is already shown: it is reported at the end instead.
 */
import type { Metrics } from '../metrics.js';
import type { ProviderRegistry, ProviderTextStream } from '../providers/index.js';
import type { ProviderUsage, UsageRecorder } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';
import { type ChainCall, firstAnswer, type ProviderLink } from './fallback-chain.js';
import { hasRules, type PreservedOriginal, type RuleViolation } from '../rules/index.js';
import type { CompiledPersona } from './compiled-personas.js';
import { StreamRefinement } from './stream-refinement.js';
import { SecretScrubber } from '../providers/secret-scrubber.js';

export interface StreamEnd {
  /** The whole result: exactly the concatenation of the pieces, unless `replaced`. */
  response: string;
  violations: RuleViolation[];
  /** Provider calls and the tokens reported, summed over every call (a fallback's included). */
  usage: UsageTally;
  /** The shown text is not a prefix of the final result (a bug): `response` replaces it; logged and counted by the caller. */
  replaced: boolean;
}

export interface RefineStream {
  personaVersion: number;
  /** Who is answering; no model for the offline `rules` provider. */
  provider: string;
  model: string | undefined;
  /** Set when the request asked for the cache. */
  cache?: { hit: false } | { hit: true; ageSeconds: number };
  /**
   * The pieces of the refined text, returning the end. Throws the DomainError of a
   * failure after the first piece (or ClientAbortedError); `return()` stops the provider.
   */
  pieces: AsyncGenerator<string, StreamEnd, undefined>;
}

/** A result known at once (the rules provider, a replay) as a stream: the whole text, then the end. */
export async function* wholeText(end: Omit<StreamEnd, 'replaced'>): AsyncGenerator<string, StreamEnd, undefined> {
  if (end.response !== '') yield end.response;
  return { ...end, replaced: false };
}

export interface StreamDependencies {
  providers: ProviderRegistry;
  metrics: Metrics;
  timeoutMs: number;
  usage: UsageRecorder;
}

export interface StreamJob {
  accountId: string;
  persona: CompiledPersona;
  /** The caller's provider first, then the fallbacks: tried only until the first text arrived. */
  links: ProviderLink[];
  user: string;
  original: PreservedOriginal | undefined;
  signal: AbortSignal;
}

/** Resolves once a provider's first text arrived; rejects like a non-streamed refine before that. */
export async function streamThroughProvider(
  { providers, metrics, timeoutMs, usage: recorder }: StreamDependencies,
  { accountId, persona, links, user, original, signal }: StreamJob,
  onEnd: (end: StreamEnd, link: ProviderLink) => Promise<void> = async () => {},
): Promise<RefineStream> {
  const started = performance.now();
  const contributions: ProviderUsage[] = [];
  const settle = (error?: unknown) => {
    const outcome = error === undefined ? 'ok' : ((error as { code?: string }).code ?? 'unknown');
    metrics.refinesInFlight.dec();
    recorder.record(accountId, contributions);
    for (const { provider, failure } of contributions) {
      const labels = { provider, outcome: failure ?? outcome };
      metrics.providerCalls.inc(labels);
      metrics.providerDuration.observe(labels, (performance.now() - started) / 1000);
    }
  };
  metrics.refinesInFlight.inc();
  const call: ChainCall = { system: persona.system, user, signal, deadline: Date.now() + timeoutMs, timeoutMs };
  let first: Awaited<ReturnType<typeof firstAnswer<ProviderTextStream>>>;
  try {
    first = await firstAnswer((link, providerCall, budget) => providers.stream(link.provider, providerCall, budget), links, call, contributions);
  } catch (error) {
    settle(error);
    throw error;
  }
  const stream = first.value;
  const refinement = new StreamRefinement(hasRules(persona.rules) ? persona.rules : undefined, original, new SecretScrubber(links.map((link) => link.apiKey)));
  async function* pieces(): AsyncGenerator<string, StreamEnd, undefined> {
    let failure: unknown;
    try {
      for await (const piece of stream.pieces) {
        const shown = refinement.push(piece);
        if (shown !== '') yield shown;
      }
      first.usage.tally.addAnswer(stream.usage());
      const end = refinement.finish();
      if (end.rest !== '') yield end.rest;
      const usage = new UsageTally();
      for (const contribution of contributions) usage.addTally(contribution.tally);
      const result = { response: end.response, violations: end.violations, usage, replaced: end.replaced };
      await onEnd(result, first.link);
      return result;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // Stopped early by the reader (`return()`) also lands here: the provider stream is closed by the for-await.
      settle(failure);
    }
  }
  return { personaVersion: persona.version, provider: first.link.provider, model: first.link.model, pieces: pieces() };
}
