/**
 * One refine run through the providers, written once for both ways of answering: the
 * provider chain with its fallbacks, the cleanup and the persona's rules, usage, metrics
 * and the end (the cache). A stream observes the run piece by piece; a non-streamed
 * refine is the same run collected, plus the one repair call a stream cannot make since
 * its text is already shown.
 */
import { type Clock, systemClock } from '../clock.js';
import { ClientAbortedError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { ProviderRegistry } from '../providers/index.js';
import { failedCallOf } from '../providers/provider-call.js';
import type { TokenUsage } from '../providers/wire/wire-format.js';
import type { SecretScrubber } from '../providers/secret-scrubber.js';
import { hasRules, needsModelRepair, repairInstructions, type PreservedOriginal, type RuleFinding } from '../rules/index.js';
import type { Judge, JudgeJob } from '../scoring/judge.js';
import type { JudgeVerdict, Rating } from '../scoring/judge-verdict.js';
import { type PersonaScore, scoreOf } from '../scoring/persona-score.js';
import { lowRated, voiceRepairInstructions } from '../scoring/voice-repair.js';
import { errorType, noTracing, type Tracer } from '../tracing/tracer.js';
import type { ProviderUsage, UsageRecorder } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';
import type { CompiledPersona } from './compiled-personas.js';
import { type ChainCall, firstAnswer, type ProviderLink } from './fallback-chain.js';
import { buildUserMessage } from './prompt.js';
import { type StreamEnd, StreamRefinement } from './stream-refinement.js';

/** stream: text is shown as it settles, no repair; collect: nothing is shown before the end, which may repair. */
export type RunMode = 'stream' | 'collect';

export interface RunEnd {
  /** The whole result: exactly the concatenation of the pieces, unless `replaced`. */
  response: string;
  violations: RuleFinding[];
  /** The score of the result (X-Persona-Score): deterministic, with `voice` when judged. */
  score: PersonaScore;
  /** Set when the request asked for a judge: what it said about `response`. */
  judge?: JudgeVerdict;
  /** Provider calls and the tokens reported, summed over every call (fallbacks, the repair and the judge included). */
  usage: UsageTally;
  /** Shown text that is not a prefix of the result (a bug): `response` replaces it; logged and counted by the caller. */
  replaced: boolean;
  /** Time spent on providers, for Server-Timing. */
  providerMs: number;
}

export interface RefineRun {
  personaVersion: number;
  /** Who is answering; no model for the offline `rules` provider. */
  provider: string;
  model: string | undefined;
  /** Set when the request asked for the cache. */
  cache?: { hit: false } | { hit: true; ageSeconds: number };
  /**
   * The text as it may be shown (nothing before the end when collecting), returning the
   * end. Throws the DomainError of a failure after the first piece (or ClientAbortedError);
   * `return()` stops the provider.
   */
  pieces: AsyncGenerator<string, RunEnd, undefined>;
}

/** A result known at once (the rules provider, a cached answer) as a run: the whole text, then the end. */
export async function* wholeText(end: Omit<RunEnd, 'replaced' | 'providerMs'>): AsyncGenerator<string, RunEnd, undefined> {
  if (end.response !== '') yield end.response;
  return { ...end, replaced: false, providerMs: 0 };
}

export interface RunDependencies {
  providers: ProviderRegistry;
  metrics: Metrics;
  timeoutMs: number;
  usage: UsageRecorder;
  judge: Judge;
  tracer?: Tracer;
  clock?: Clock;
}

export interface RunJob {
  accountId: string;
  persona: CompiledPersona;
  /** The caller's provider first, then the fallbacks: tried only until the first text arrived. */
  links: ProviderLink[];
  user: string;
  original: PreservedOriginal | undefined;
  signal: AbortSignal;
  /** Removes every link's key (and the judge's) from the answer before anything shows or stores it. */
  scrubber: SecretScrubber;
  /** Who rates the final answer, when the request asked for a judge. */
  judging?: JudgeJob;
}

/** What one provider answer is to the run: its text in pieces, the attempts that failed before it, and its usage once the pieces ended. */
interface AnswerSource {
  pieces: AsyncIterable<string> | Iterable<string>;
  failedAttempts: number;
  usage(): Partial<TokenUsage> | undefined;
}

/**
 * Starts the run: resolves once a provider answered (its first text, when streaming),
 * rejecting exactly as a refine fails before that. `onEnd` gets the finished result and the
 * link that answered (whose key paid for it).
 */
export async function runThroughProviders(
  { providers, metrics, timeoutMs, usage: recorder, judge, tracer = noTracing, clock = systemClock }: RunDependencies,
  { accountId, persona, links, user, original, signal, scrubber, judging }: RunJob,
  mode: RunMode,
  onEnd: (end: RunEnd, link: ProviderLink) => Promise<void> = async () => {},
): Promise<RefineRun> {
  const started = performance.now();
  const contributions: ProviderUsage[] = [];
  const settle = (error?: unknown) => {
    const outcome = error === undefined ? 'ok' : ((error as { code?: string }).code ?? 'unknown');
    metrics.refinesInFlight.dec();
    recorder.record(accountId, contributions);
    for (const { provider, failure, durationMs } of contributions) {
      const labels = { provider, outcome: failure ?? outcome };
      metrics.providerCalls.inc(labels);
      metrics.providerDuration.observe(labels, (durationMs ?? 0) / 1000);
      metrics.providerDurationLegacy.observe(labels, (durationMs ?? 0) / 1000);
    }
  };
  metrics.refinesInFlight.inc();
  const call: ChainCall = { system: persona.system, user, signal, scrubber, deadline: clock.now() + timeoutMs, timeoutMs };
  let first: { source: AnswerSource; link: ProviderLink; usage: ProviderUsage };
  try {
    const answered = await firstAnswer<AnswerSource>(
      async (link, providerCall, budget) => {
        if (mode === 'collect') {
          const answer = await providers.generate(link.provider, providerCall, budget);
          return { pieces: [answer.text], failedAttempts: answer.failedAttempts, usage: () => answer.usage };
        }
        const stream = await providers.stream(link.provider, providerCall, budget);
        return { pieces: stream.pieces, failedAttempts: stream.failedAttempts, usage: () => stream.usage() };
      },
      links,
      call,
      contributions,
      clock,
    );
    first = { source: answered.value, link: answered.link, usage: answered.usage };
  } catch (error) {
    settle(error);
    throw error;
  }
  const refinement = new StreamRefinement(hasRules(persona.rules) ? persona.rules : undefined, original, scrubber);

  /**
   * The one repair call, to the provider that answered, inside the same deadline: for the rules'
   * violations and, when judged under `minScore`, the low-rated attributes. Best effort:
   * undefined when it failed, and the caller keeps the better of the two answers.
   */
  async function repaired(end: StreamEnd, lowVoice: readonly Rating[]): Promise<StreamEnd | undefined> {
    const span = tracer.start('repair').set('persona_refine.rules.violations', end.violations.length);
    const repairStarted = performance.now();
    const repair = async (): Promise<StreamEnd> => {
      const instructions = [repairInstructions(end.violations, end.response, original), voiceRepairInstructions(lowVoice)].filter((part) => part !== '').join('\n\n');
      const answer = await providers.generate(
        first.link.provider,
        { apiKey: first.link.apiKey, scrubber, model: first.link.model, system: persona.system, user: `${instructions}\n\n${buildUserMessage(end.response)}`, signal },
        { deadline: call.deadline, timeoutMs: call.timeoutMs },
      );
      first.usage.tally.addFailedCalls(answer.failedAttempts);
      first.usage.tally.addAnswer(answer.usage);
      const again = new StreamRefinement(persona.rules, original, scrubber);
      again.append(answer.text);
      return checked(again);
    };
    try {
      return await tracer.within(span, repair);
    } catch (error) {
      first.usage.tally.addFailedCalls(failedCallOf(error).failedAttempts);
      if (error instanceof ClientAbortedError) {
        span.fail(errorType(error));
        throw error;
      }
      return undefined;
    } finally {
      first.usage.durationMs = (first.usage.durationMs ?? 0) + (performance.now() - repairStarted);
      span.end();
    }
  }

  const judgeUsage = new UsageTally();
  /** The judge's verdict on a text, its calls added to the refine's usage; undefined when no judge was asked for. */
  const judged = async (text: string): Promise<JudgeVerdict | undefined> => {
    if (!judging) return undefined;
    const judgement = await judge.judge(judging, text, call.deadline);
    judgeUsage.addTally(judgement.usage);
    return judgement.verdict;
  };

  /**
   * Collecting: the answer, judged, and the one repair call when the rules need the model or the
   * judged score is under `minScore`; the repaired answer is judged again, so the score always
   * describes the answer returned, and the better of the two stands (by score when both were
   * judged, else by violations, the repair's on a tie).
   */
  async function collected(end: StreamEnd): Promise<{ end: StreamEnd; verdict: JudgeVerdict | undefined }> {
    const verdict = await judged(end.response);
    const underBar = verdict && 'ratings' in verdict && persona.minScore !== undefined && scoreOf(end.violations, original, verdict).score < persona.minScore;
    const lowVoice = underBar ? lowRated(verdict.ratings) : [];
    if (!needsModelRepair(end.violations) && lowVoice.length === 0) return { end, verdict };
    const second = await repaired(end, lowVoice);
    if (second === undefined) return { end, verdict };
    const secondVerdict = await judged(second.response);
    const bothRated = verdict && 'ratings' in verdict && secondVerdict && 'ratings' in secondVerdict;
    const better = bothRated
      ? scoreOf(second.violations, original, secondVerdict).score >= scoreOf(end.violations, original, verdict).score
      : second.violations.length <= end.violations.length;
    return better ? { end: second, verdict: secondVerdict } : { end, verdict };
  }

  /** The end of a refinement, as one `rules` span with the count of what the rules could not fix. */
  function checked(of: StreamRefinement): StreamEnd {
    const span = tracer.start('rules');
    const end = of.finish();
    span.set('persona_refine.rules.violations', end.violations.length).end();
    return end;
  }

  async function* pieces(): AsyncGenerator<string, RunEnd, undefined> {
    let failure: unknown;
    let answerCounted = false;
    const countAnswer = () => {
      answerCounted = true;
      first.usage.tally.addAnswer(first.source.usage());
      first.usage.durationMs = performance.now() - (first.usage.startedAt ?? started);
    };
    try {
      for await (const piece of first.source.pieces) {
        if (mode === 'collect') {
          refinement.append(piece);
          continue;
        }
        const shown = refinement.push(piece);
        if (shown !== '') yield shown;
      }
      countAnswer();
      let end = checked(refinement);
      let verdict: JudgeVerdict | undefined;
      if (mode === 'collect') ({ end, verdict } = await collected(end));
      else {
        if (end.rest !== '') yield end.rest;
        verdict = await judged(end.response);
      }
      const usage = new UsageTally();
      for (const contribution of contributions) usage.addTally(contribution.tally);
      usage.addTally(judgeUsage);
      const result: RunEnd = {
        response: end.response, violations: end.violations, score: scoreOf(end.violations, original, verdict), ...(verdict ? { judge: verdict } : {}),
        usage, replaced: end.replaced, providerMs: performance.now() - started,
      };
      await onEnd(result, first.link);
      return result;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // Stopped early by the reader (`return()`) also lands here: the provider stream is closed by the for-await.
      // The call was made and may have reported tokens before it was cut (a client that left): they are spent.
      if (!answerCounted) countAnswer();
      settle(failure);
    }
  }
  return { personaVersion: persona.version, provider: first.link.provider, model: first.link.model, pieces: pieces() };
}
