/**
 * The refine use case: persona → prompt → the caller's provider (then their
 * fallbacks) → cleaned text → the persona's deterministic rules. Validation
 * that needs no I/O (the provider ids) comes first, then the persona lookup;
 * nothing reaches a provider unless both pass. With a cache policy, an answer
 * stored for the same request may stand in for the provider call. Every
 * refine is counted into the account's usage, whatever its outcome.
 *
 * Streamed or not, a refine is one run (refine-run.ts): `refine` collects it,
 * `refineStream` hands it over to be observed piece by piece.
 */
import type { AnswerCache } from '../cache/answer-cache.js';
import { CachedRuns } from '../cache/cached-run.js';
import type { CachePolicy } from '../cache/cache-control.js';
import { type Clock, systemClock } from '../clock.js';
import { invalidRequest } from '../errors.js';
import type { Metrics } from '../metrics.js';
import { type ProviderRegistry, singleTurn } from '../providers/index.js';
import { SecretScrubber } from '../providers/secret-scrubber.js';
import { originalFor as rulesOriginal, type PreservedOriginal, type RuleFinding } from '../rules/index.js';
import { type PersonaScore, scoreOf } from '../scoring/persona-score.js';
import type { Judge, JudgeJob, JudgeTarget } from '../scoring/judge.js';
import type { JudgeVerdict } from '../scoring/judge-verdict.js';
import type { ProviderInfo } from '../providers/provider-info.js';
import type { RefineRequest } from './refine-request.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';
import type { CompiledPersona, CompiledPersonas } from './compiled-personas.js';
import type { ProviderLink } from './fallback-chain.js';
import { buildUserMessage } from './prompt.js';
import { enforceInSpan } from './rules-span.js';
import { type KnownResult, observed, personaOf, type RefineRun, type RunJob, type RunMode, runThroughProviders, wholeText } from './refine-run.js';
import { type AnswerObserver, unobserved } from '../quality/answer-event.js';
import { noTracing, traced, type Tracer } from '../tracing/tracer.js';

/** Applies only the persona's deterministic rules: no network, no model, no key. */
export const RULES_PROVIDER = 'rules';

/**
 * A `rules` answer is never stored (applying the rules costs less than a lookup), but a caller
 * who asked for the cache is told it was a miss rather than left without `X-Cache`.
 */
const rulesCache = (policy: CachePolicy | undefined) => (policy ? { cache: { hit: false as const } } : {});

export interface RefineResult {
  response: string;
  /** Time spent waiting on the provider, retries and repair included, for Server-Timing. */
  providerMs: number;
  /** Rule violations neither the fixes nor the repair call could remove. */
  violations: RuleFinding[];
  /** The score of the answer (X-Persona-Score): deterministic, plus `voice` when the judge rated it. */
  score: PersonaScore;
  /**
   * Set when the request asked for a judge: the ratings of the answer returned (X-Persona-Ratings),
   * or `{ error }` when the judge failed (the refine still succeeds; score without voice).
   */
  judge?: JudgeVerdict;
  /** Who produced the answer; no model for the offline `rules` provider. */
  provider: string;
  model: string | undefined;
  /** Provider calls and tokens, summed over every call this refine made. */
  usage: UsageTally;
  /** The persona version used (X-Persona-Version). */
  personaVersion: number;
  /** The persona's variant used, if any (X-Persona-Variant). */
  personaVariant?: string;
  /** Set when the request asked for the cache. */
  cache?: { hit: false } | { hit: true; ageSeconds: number };
}

/** A refine that goes to the providers (or the cache), everything resolved. */
interface ProviderJob extends RunJob {
  personaId: string;
}

export class RefineService {
  /** The answer cache's lookup, store and hit path, shared with chat completions. */
  private readonly cached: CachedRuns;

  constructor(
    private readonly personas: CompiledPersonas,
    private readonly providers: ProviderRegistry,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
    private readonly usage: UsageRecorder,
    cache: AnswerCache,
    private readonly judge: Judge,
    private readonly tracer: Tracer = noTracing,
    private readonly clock: Clock = systemClock,
    /** Hears of every answer that stands (quality on live traffic, docs/quality.md). */
    private readonly answers: AnswerObserver = unobserved,
  ) {
    this.cached = new CachedRuns(cache, usage, tracer);
  }

  /** Every provider a refine may name: the registry's, then `rules`. */
  listProviders(): ProviderInfo[] {
    return [
      ...this.providers.describe().map((provider) => ({ ...provider, requiresKey: true })),
      { id: RULES_PROVIDER, name: 'Rules only (no model)', defaultModel: null, requiresKey: false },
    ];
  }

  providerIds(): string[] {
    return [...this.providers.ids(), RULES_PROVIDER];
  }

  async refine(accountId: string, body: RefineRequest, signal: AbortSignal, cachePolicy?: CachePolicy): Promise<RefineResult> {
    const run = await this.start(accountId, body, signal, cachePolicy, 'collect');
    let next = await run.pieces.next();
    while (!next.done) next = await run.pieces.next();
    const { response, providerMs, violations, score, judge, usage } = next.value;
    return {
      response, providerMs, violations, score, ...(judge ? { judge } : {}), usage,
      provider: run.provider, model: run.model, personaVersion: run.personaVersion, ...(run.personaVariant === undefined ? {} : { personaVariant: run.personaVariant }),
      ...(run.cache ? { cache: run.cache } : {}),
    };
  }

  /**
   * The same refine, streamed. Resolves once the first text is there; everything that
   * fails before that rejects exactly as `refine` does.
   */
  refineStream(accountId: string, body: RefineRequest, signal: AbortSignal, cachePolicy?: CachePolicy): Promise<RefineRun> {
    return this.start(accountId, body, signal, cachePolicy, 'stream');
  }

  private async start(accountId: string, body: RefineRequest, signal: AbortSignal, cachePolicy: CachePolicy | undefined, mode: RunMode): Promise<RefineRun> {
    this.checkProviders(body);
    const judgeTarget = this.judgeTarget(body);
    const persona = await this.persona(accountId, body);
    const run = await this.answer(accountId, body, persona, signal, cachePolicy, mode, judgeTarget);
    return observed(run, ({ score, violations, response, usage }) =>
      this.answers.answered({
        accountId, personaId: body.personaId, version: persona.version, minScore: persona.minScore, score: score.score, findings: violations,
        inputTokens: usage.inputTokens, outputTokens: usage.outputTokens,
        exchange: { content: body.content, response, violations },
      }),
    );
  }

  /** The run that answers: the rules provider's, a cached answer's, or the providers'. */
  private async answer(
    accountId: string, body: RefineRequest, persona: CompiledPersona, signal: AbortSignal,
    cachePolicy: CachePolicy | undefined, mode: RunMode, judgeTarget: JudgeTarget | undefined,
  ): Promise<RefineRun> {
    if (body.provider === RULES_PROVIDER) {
      const original = originalFor(persona, body.content);
      const { text, remaining } = enforceInSpan(this.tracer, persona, body.content, original);
      const usage = new UsageTally();
      this.usage.record(accountId, [{ provider: RULES_PROVIDER, model: '', outcome: 'answered', tally: usage }]);
      const judging = this.judging(accountId, persona, signal, judgeTarget, new SecretScrubber(judgeTarget ? [judgeTarget.apiKey] : []));
      const end = await this.judgedAtOnce(judging, original, { response: text, violations: remaining, usage });
      return { ...personaOf(persona), provider: RULES_PROVIDER, model: undefined, pieces: wholeText(end), ...rulesCache(cachePolicy) };
    }
    const job = this.job(accountId, body, persona, signal, judgeTarget);
    const dependencies = {
      providers: this.providers, metrics: this.metrics, timeoutMs: this.timeoutMs, usage: this.usage, judge: this.judge, tracer: this.tracer, clock: this.clock,
    };
    if (!cachePolicy) return runThroughProviders(dependencies, job, mode);
    // A hit is judged afresh when asked.
    const finish = (result: Parameters<typeof this.judgedAtOnce>[2]) => this.judgedAtOnce(job.judging, job.original, result);
    return this.cached.run(job, cachePolicy, finish, (store) => runThroughProviders(dependencies, job, mode, store));
  }

  /**
   * Who judges the answer, checked before any I/O: `judge: true` is the refine's own provider,
   * key and model, which `rules` does not have (docs/voice-score.md, "The judge"). An evaluation
   * names its judge with this too.
   */
  judgeTarget(body: Pick<RefineRequest, 'provider' | 'providerApiKey' | 'model' | 'judge'>): JudgeTarget | undefined {
    if (body.judge === undefined) return undefined;
    if (body.judge !== true) return this.judge.target(body.judge);
    if (body.provider === RULES_PROVIDER) {
      throw invalidRequest('judge: true judges with the refine\'s own provider, and "rules" has no model; name a judge instead: {"provider", "providerApiKey", "model"?}');
    }
    const { providerApiKey } = this.withKey(body);
    return this.judge.target({ provider: body.provider, providerApiKey, ...(body.model === undefined ? {} : { model: body.model }) });
  }

  /**
   * A result known at once (the rules provider, a cached answer), judged when asked: no repair
   * follows, since there is no model call of this refine to repair with; the deadline is its own.
   */
  private async judgedAtOnce(
    judging: JudgeJob | undefined,
    original: PreservedOriginal | undefined,
    result: { response: string; violations: RuleFinding[]; usage: UsageTally },
  ): Promise<KnownResult> {
    const { response, violations, usage } = result;
    if (!judging) return { ...result, score: scoreOf(violations, original) };
    const { verdict, usage: judgeUsage } = await this.judge.judge(judging, response);
    usage.addTally(judgeUsage);
    return { response, violations, score: scoreOf(violations, original, verdict), judge: verdict, usage };
  }

  /** The request's judge, once per refine whichever way it is answered; `scrubber` holds every key of the request. */
  private judging(accountId: string, persona: CompiledPersona, signal: AbortSignal, target: JudgeTarget | undefined, scrubber: SecretScrubber): JudgeJob | undefined {
    return target && { accountId, target, persona, signal, scrubber, timeoutMs: this.timeoutMs };
  }

  /** Run after the validation that needs no I/O (the provider ids, the judge). */
  private async persona(accountId: string, body: RefineRequest): Promise<CompiledPersona> {
    const loading = this.tracer.start('persona.load').set('persona_refine.persona_id', body.personaId);
    return traced(loading, this.personas.get(accountId, body.personaId, body));
  }

  private job(accountId: string, body: RefineRequest, persona: CompiledPersona, signal: AbortSignal, judgeTarget: JudgeTarget | undefined): ProviderJob {
    const { providerApiKey } = this.withKey(body);
    const links: ProviderLink[] = [
      { provider: body.provider, apiKey: providerApiKey, model: body.model ?? this.providers.defaultModel(body.provider) },
      ...(body.fallbacks ?? []).map((f) => ({ provider: f.provider, apiKey: f.providerApiKey, model: f.model ?? this.providers.defaultModel(f.provider) })),
    ];
    const scrubber = new SecretScrubber([...links.map((link) => link.apiKey), ...(judgeTarget ? [judgeTarget.apiKey] : [])]);
    const judging = this.judging(accountId, persona, signal, judgeTarget, scrubber);
    return {
      accountId, personaId: body.personaId, persona, links, signal, scrubber,
      conversation: singleTurn(persona.system, buildUserMessage(body.content)),
      original: originalFor(persona, body.content),
      ...(judging ? { judging } : {}),
    };
  }

  private withKey<T extends Pick<RefineRequest, 'provider' | 'providerApiKey'>>(body: T): T & { providerApiKey: string } {
    if (body.providerApiKey === undefined) {
      throw invalidRequest(`providerApiKey is required for provider "${body.provider}"`);
    }
    return { ...body, providerApiKey: body.providerApiKey };
  }

  private checkProviders(body: RefineRequest): void {
    const known = (id: string) => id === RULES_PROVIDER || this.providers.has(id);
    const unknown = (id: string) => invalidRequest(`unknown provider "${id.slice(0, 64)}"; supported: ${this.providerIds().join(', ')}`);
    if (!known(body.provider)) throw unknown(body.provider);
    if (body.fallbacks === undefined || body.fallbacks.length === 0) return;
    if (body.provider === RULES_PROVIDER) throw invalidRequest('fallbacks need a provider that calls a model; "rules" cannot fail');
    for (const [index, fallback] of body.fallbacks.entries()) {
      if (fallback.provider === RULES_PROVIDER) throw invalidRequest(`fallbacks.${index}.provider cannot be "rules": it is not a model provider`);
      if (!known(fallback.provider)) throw unknown(fallback.provider);
    }
  }
}

/** The content's items, found once per refine and compared with each answer. */
function originalFor(persona: CompiledPersona, content: string): PreservedOriginal | undefined {
  return rulesOriginal(persona.rules, content);
}
