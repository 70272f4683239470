/**
 * One refine run through the providers, written once for both ways of answering: the
 * provider chain with its fallbacks, the cleanup and the persona's rules, usage, metrics
 * and the end (the cache). A stream observes the run piece by piece; a non-streamed
 * refine is the same run collected, plus the one repair call a stream cannot make since
 * its text is already shown.
 */
import { type Clock, systemClock } from '../clock.js';
import { ClientAbortedError, DomainError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import { type Conversation, type FinishReason, type ProviderRegistry, singleTurn, type ToolCall, ToolCallAssembly } from '../providers/index.js';
import { failedCallOf } from '../providers/provider-call.js';
import type { SecretScrubber } from '../providers/secret-scrubber.js';
import { hasRules, needsModelRepair, repairInstructions, type PreservedOriginal, type RuleFinding } from '../rules/index.js';
import type { Judge, JudgeJob } from '../scoring/judge.js';
import type { JudgeVerdict, Rating } from '../scoring/judge-verdict.js';
import { type PersonaScore, scoreOf } from '../scoring/persona-score.js';
import { lowRated, voiceRepairInstructions } from '../scoring/voice-repair.js';
import { errorType, noTracing, type Tracer } from '../tracing/tracer.js';
import type { ProviderUsage, UsageRecorder } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';
import { type AnswerSource, answerSource } from './answer-source.js';
import type { CompiledPersona } from './compiled-personas.js';
import { type ChainCall, firstAnswer, type ProviderLink } from './fallback-chain.js';
import { generatedCleanup, rewriteCleanup } from './output-cleanup.js';
import { buildUserMessage } from './prompt.js';
import { type StreamEnd, StreamRefinement } from './stream-refinement.js';

/** stream: text is shown as it settles, no repair; collect: nothing is shown before the end, which may repair. */
export type RunMode = 'stream' | 'collect';

export interface RunEnd {
  /** The whole result: exactly the concatenation of the pieces, unless `replaced`. */
  response: string;
  /** The tool calls of the answer that stands (a streamed run shows them only here, at its end). */
  toolCalls: ToolCall[];
  /** Why the model of the answer that stands stopped. */
  finishReason: FinishReason;
  /**
   * `skipped` when the text was not the persona's to write: the conversation asked for JSON
   * (cleaned and scrubbed only), or the answer is only tool calls (no text; no sign-off). Such an
   * answer is neither judged nor repaired.
   */
  rules: 'applied' | 'skipped';
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
  /** The persona's variant used, if any (X-Persona-Variant). */
  personaVariant?: string;
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

/** A result known at once, without a model's answer of its own to report (the rules provider, a cached answer). */
export type KnownResult = Omit<RunEnd, 'replaced' | 'providerMs' | 'toolCalls' | 'finishReason' | 'rules'>;

/** What a known result's answer was, when not text the rules applied to (a cached completion's tool calls). */
type KnownAnswer = Pick<RunEnd, 'toolCalls' | 'finishReason' | 'rules'>;

/** A result known at once as a run: the whole text, then the end. */
export async function* wholeText(
  end: KnownResult,
  answer: KnownAnswer = { toolCalls: [], finishReason: 'stop', rules: 'applied' },
): AsyncGenerator<string, RunEnd, undefined> {
  if (end.response !== '') yield end.response;
  return { ...end, ...answer, replaced: false, providerMs: 0 };
}

/**
 * The run, its end heard by `onAnswer` once the answer stands: never for a run that failed or
 * whose reader stopped before its end. Every way of answering (the providers, a cache hit, the
 * rules provider) passes here, streamed or not.
 */
export function observed(run: RefineRun, onAnswer: (end: RunEnd) => void): RefineRun {
  async function* pieces(): AsyncGenerator<string, RunEnd, undefined> {
    const end = yield* run.pieces;
    onAnswer(end);
    return end;
  }
  return { ...run, pieces: pieces() };
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
  /**
   * What the providers are asked: the persona's instructions (`system`), then the caller's turns.
   * A refine's is one user message (singleTurn); a repair call is always one, whatever this is.
   */
  conversation: Conversation;
  original: PreservedOriginal | undefined;
  signal: AbortSignal;
  /** Removes every link's key (and the judge's) from the answer before anything shows or stores it. */
  scrubber: SecretScrubber;
  /** Who rates the final answer, when the request asked for a judge. */
  judging?: JudgeJob;
}

/** An answer through the rules, with why its model stopped. */
interface Answered {
  end: StreamEnd;
  finishReason: FinishReason;
}

/** A conversation that asks for JSON gets the model's JSON, not the persona's prose. */
const asksForJson = ({ responseFormat }: Conversation) => responseFormat !== undefined && responseFormat.type !== 'text';

/**
 * Starts the run: resolves once a provider answered (its first text, when streaming),
 * rejecting exactly as a refine fails before that. `onEnd` gets the finished result and the
 * link that answered (whose key paid for it).
 */
export async function runThroughProviders(
  { providers, metrics, timeoutMs, usage: recorder, judge, tracer = noTracing, clock = systemClock }: RunDependencies,
  { accountId, persona, links, conversation, original, signal, scrubber, judging }: RunJob,
  mode: RunMode,
  onEnd: (end: RunEnd, link: ProviderLink) => Promise<void> = async () => {},
): Promise<RefineRun> {
  // Refused before any call, whichever provider of the chain would have been the one to refuse.
  for (const link of links) providers.checkConversation(link.provider, conversation);
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
  const call: ChainCall = { conversation, signal, scrubber, deadline: clock.now() + timeoutMs, timeoutMs };
  let first: { source: AnswerSource; link: ProviderLink; usage: ProviderUsage };
  try {
    const answered = await firstAnswer(answerSource(providers, mode), links, call, contributions, clock);
    first = { source: answered.value, link: answered.link, usage: answered.usage };
  } catch (error) {
    settle(error);
    throw error;
  }
  const rulesApply = !asksForJson(conversation);
  // A generated answer is kept as the model wrote it, only trimmed; its repair's too.
  const cleanup = conversation.answerKind === 'generated' ? generatedCleanup : rewriteCleanup;
  const refinement = new StreamRefinement(rulesApply && hasRules(persona.rules) ? persona.rules : undefined, original, scrubber, cleanup);

  /**
   * The one repair call, to the provider that answered, inside the same deadline: for the rules'
   * violations and, when judged under `minScore`, the low-rated attributes. Best effort:
   * undefined when it failed, and the caller keeps the better of the two answers.
   */
  async function repaired(end: StreamEnd, lowVoice: readonly Rating[]): Promise<Answered | undefined> {
    const span = tracer.start('repair').set('persona_refine.rules.violations', end.violations.length);
    const repairStarted = performance.now();
    const repair = async (): Promise<Answered> => {
      const instructions = [repairInstructions(end.violations, end.response, original), voiceRepairInstructions(lowVoice)].filter((part) => part !== '').join('\n\n');
      const answer = await providers.generate(
        first.link.provider,
        {
          apiKey: first.link.apiKey, scrubber, model: first.link.model, signal,
          conversation: singleTurn(persona.system, `${instructions}\n\n${buildUserMessage(end.response)}`),
        },
        { deadline: call.deadline, timeoutMs: call.timeoutMs },
      );
      first.usage.tally.addFailedCalls(answer.failedAttempts);
      first.usage.tally.addAnswer(answer.usage);
      const again = new StreamRefinement(persona.rules, original, scrubber, cleanup);
      again.append(answer.text);
      return { end: checked(again), finishReason: answer.finishReason };
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
   * judged, else by violations, the repair's on a tie). An answer with tool calls is not repaired:
   * a repair rewrites text alone, and its text is only what goes with the calls.
   */
  async function collected(answer: Answered, calledTools: boolean): Promise<Answered & { verdict: JudgeVerdict | undefined }> {
    const { end } = answer;
    const verdict = await judged(end.response);
    const underBar = verdict && 'ratings' in verdict && persona.minScore !== undefined && scoreOf(end.violations, original, verdict).score < persona.minScore;
    const lowVoice = underBar ? lowRated(verdict.ratings) : [];
    if (calledTools || (!needsModelRepair(end.violations) && lowVoice.length === 0)) return { ...answer, verdict };
    const second = await repaired(end, lowVoice);
    if (second === undefined) return { ...answer, verdict };
    const secondVerdict = await judged(second.end.response);
    const bothRated = verdict && 'ratings' in verdict && secondVerdict && 'ratings' in secondVerdict;
    const better = bothRated
      ? scoreOf(second.end.violations, original, secondVerdict).score >= scoreOf(end.violations, original, verdict).score
      : second.end.violations.length <= end.violations.length;
    return better ? { ...second, verdict: secondVerdict } : { ...answer, verdict };
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
    let finished = false;
    let answerCounted = false;
    const countAnswer = () => {
      answerCounted = true;
      first.usage.tally.addAnswer(first.source.usage());
      first.usage.durationMs = performance.now() - (first.usage.startedAt ?? started);
    };
    try {
      let saidSomething = false;
      const toolCalls = new ToolCallAssembly();
      for await (const piece of first.source.pieces) {
        if (typeof piece !== 'string') {
          toolCalls.add(piece);
          continue;
        }
        saidSomething ||= piece.trim() !== '';
        if (mode === 'collect') {
          refinement.append(piece);
          continue;
        }
        const shown = refinement.push(piece);
        if (shown !== '') yield shown;
      }
      countAnswer();
      // A model may write a key into a call as into text: what it calls goes out scrubbed too.
      const calls = toolCalls.toolCalls().map((toolCall) => ({ ...toolCall, name: scrubber.scrub(toolCall.name), arguments: scrubber.scrubJson(toolCall.arguments) }));
      const finishReason = first.source.finishReason() ?? (calls.length > 0 ? 'tool_calls' : 'stop');
      // An answer of tool calls alone has no text for the rules to write (a sign-off would invent one).
      const onlyToolCalls = calls.length > 0 && !saidSomething;
      // Neither judged nor repaired: text that is not the persona's to write, or no text at all.
      const skipped = onlyToolCalls || !rulesApply;
      let answer: Answered = { end: onlyToolCalls ? { rest: '', response: '', violations: [], replaced: false } : checked(refinement), finishReason };
      let verdict: JudgeVerdict | undefined;
      if (mode === 'collect') {
        if (!skipped) ({ verdict, ...answer } = await collected(answer, calls.length > 0));
      } else {
        if (answer.end.rest !== '') yield answer.end.rest;
        if (!skipped) verdict = await judged(answer.end.response);
      }
      const { end } = answer;
      const usage = new UsageTally();
      for (const contribution of contributions) usage.addTally(contribution.tally);
      usage.addTally(judgeUsage);
      const result: RunEnd = {
        response: end.response, toolCalls: calls, finishReason: answer.finishReason, rules: skipped ? 'skipped' : 'applied',
        violations: end.violations, score: scoreOf(end.violations, original, verdict), ...(verdict ? { judge: verdict } : {}),
        usage, replaced: end.replaced, providerMs: performance.now() - started,
      };
      await onEnd(result, first.link);
      finished = true;
      return result;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // Stopped early by the reader (`return()`) also lands here: the provider stream is closed by the for-await.
      // The call was made and may have reported tokens before it was cut (a client that left): they are spent.
      if (!answerCounted) countAnswer();
      // An answer begun is not a refine until it ends: cut by its provider it is that provider's
      // failure; left by the reader (an error of ours, a client gone) it counts its calls alone.
      if (!finished) {
        const cut = failure instanceof DomainError && failure.source === 'provider' ? failure : undefined;
        first.usage.outcome = cut ? 'failed' : 'aborted';
        if (cut) first.usage.failure = cut.code;
      }
      settle(failure);
    }
  }
  return { ...personaOf(persona), provider: first.link.provider, model: first.link.model, pieces: pieces() };
}

/** The version and variant a run answers with (X-Persona-Version, X-Persona-Variant). */
export function personaOf(persona: Pick<CompiledPersona, 'version' | 'variant'>): Pick<RefineRun, 'personaVersion' | 'personaVariant'> {
  return { personaVersion: persona.version, ...(persona.variant === undefined ? {} : { personaVariant: persona.variant }) };
}
