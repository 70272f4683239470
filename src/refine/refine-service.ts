/**
 * The refine use case: persona → prompt → the caller's provider (then their
 * fallbacks) → cleaned text → the persona's deterministic rules. Validation
 * that needs no I/O (the provider ids) comes first, then the persona lookup;
 * nothing reaches a provider unless both pass. With a cache policy, an answer
 * stored for the same request may stand in for the provider call. Every
 * refine is counted into the account's usage, whatever its outcome.
 */
import type { AnswerCache, CacheHit } from '../cache/answer-cache.js';
import type { CachePolicy } from '../cache/cache-control.js';
import { ClientAbortedError, invalidRequest } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { ProviderRegistry } from '../providers/index.js';
import { SecretScrubber } from '../providers/secret-scrubber.js';
import {
  enforce, hasRules, needsModelRepair, preservedOriginal, repairInstructions,
  type PreservedOriginal, type RuleViolation,
} from '../rules/index.js';
import type { ProviderInfo } from '../providers/provider-info.js';
import type { RefineRequest } from './refine-request.js';
import type { ProviderUsage, UsageRecorder } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';
import type { CompiledPersona, CompiledPersonas } from './compiled-personas.js';
import { type ChainCall, countAttempts, firstAnswer, type ProviderLink } from './fallback-chain.js';
import { cleanModelOutput } from './output-cleanup.js';
import { buildUserMessage } from './prompt.js';
import { type RefineStream, type StreamEnd, streamThroughProvider, wholeText } from './refine-stream.js';
import { errorType, noTracing, traced, type Tracer } from '../tracing/tracer.js';

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
  violations: RuleViolation[];
  /** Who produced the answer; no model for the offline `rules` provider. */
  provider: string;
  model: string | undefined;
  /** Provider calls and tokens, summed over every call this refine made. */
  usage: UsageTally;
  /** The persona version used (X-Persona-Version). */
  personaVersion: number;
  /** Set when the request asked for the cache. */
  cache?: { hit: false } | { hit: true; ageSeconds: number };
}

/** A refine that goes to the providers (or the cache), everything resolved. */
interface ProviderJob {
  accountId: string;
  personaId: string;
  persona: CompiledPersona;
  /** The caller's provider first, then the fallbacks. */
  links: ProviderLink[];
  user: string;
  /** What the `preserve` rule checks against, when the persona has it. */
  original: PreservedOriginal | undefined;
  signal: AbortSignal;
  /** Removes every link's key from an answer before anything shows or stores it. */
  scrubber: SecretScrubber;
}

export class RefineService {
  constructor(
    private readonly personas: CompiledPersonas,
    private readonly providers: ProviderRegistry,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
    private readonly usage: UsageRecorder,
    private readonly cache: AnswerCache,
    private readonly tracer: Tracer = noTracing,
  ) {}

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
    const persona = await this.persona(accountId, body);
    if (body.provider === RULES_PROVIDER) {
      const { text, remaining } = this.enforce(persona, body.content, originalFor(persona, body.content));
      const usage = new UsageTally();
      this.usage.record(accountId, [{ provider: RULES_PROVIDER, model: '', outcome: 'answered', tally: usage }]);
      return { response: text, providerMs: 0, violations: remaining, provider: RULES_PROVIDER, model: undefined, usage, personaVersion: persona.version, ...rulesCache(cachePolicy) };
    }
    const job = this.job(accountId, body, persona, signal);
    return cachePolicy ? this.throughCache(job, cachePolicy) : (await this.throughProviders(job)).result;
  }

  /**
   * The same refine, streamed (refine-stream.ts). Resolves once the first text is there;
   * everything that fails before that rejects exactly as `refine` does.
   */
  async refineStream(accountId: string, body: RefineRequest, signal: AbortSignal, cachePolicy?: CachePolicy): Promise<RefineStream> {
    const persona = await this.persona(accountId, body);
    if (body.provider === RULES_PROVIDER) {
      const { text, remaining } = this.enforce(persona, body.content, originalFor(persona, body.content));
      const usage = new UsageTally();
      this.usage.record(accountId, [{ provider: RULES_PROVIDER, model: '', outcome: 'answered', tally: usage }]);
      return { personaVersion: persona.version, provider: RULES_PROVIDER, model: undefined, pieces: wholeText({ response: text, violations: remaining, usage }), ...rulesCache(cachePolicy) };
    }
    const job = this.job(accountId, body, persona, signal);
    const dependencies = { providers: this.providers, metrics: this.metrics, timeoutMs: this.timeoutMs, usage: this.usage };
    if (!cachePolicy) return streamThroughProvider(dependencies, job);
    const { key, hit } = await this.fromCache(job, cachePolicy);
    if (hit) {
      return {
        personaVersion: persona.version, provider: hit.provider, model: hit.model, cache: hit.cache,
        pieces: wholeText({ response: hit.response, violations: hit.violations, usage: hit.usage }),
      };
    }
    // Stored once the stream ended whole, under the key of whoever answered.
    const store = async (end: StreamEnd, link: ProviderLink) => {
      if (!cachePolicy.write || key === undefined) return;
      await this.store(job, key, link, end.response);
    };
    return { ...(await streamThroughProvider(dependencies, job, store)), cache: { hit: false } };
  }

  /** Validation that needs no I/O first (the provider ids), then the persona lookup. */
  private async persona(accountId: string, body: RefineRequest): Promise<CompiledPersona> {
    this.checkProviders(body);
    const loading = this.tracer.start('persona.load').set('persona_refine.persona_id', body.personaId);
    return traced(loading, this.personas.get(accountId, body.personaId, body));
  }

  private job(accountId: string, body: RefineRequest, persona: CompiledPersona, signal: AbortSignal): ProviderJob {
    const { providerApiKey } = this.withKey(body);
    const links: ProviderLink[] = [
      { provider: body.provider, apiKey: providerApiKey, model: body.model ?? this.providers.defaultModel(body.provider) },
      ...(body.fallbacks ?? []).map((f) => ({ provider: f.provider, apiKey: f.providerApiKey, model: f.model ?? this.providers.defaultModel(f.provider) })),
    ];
    return {
      accountId, personaId: body.personaId, persona, links, signal,
      user: buildUserMessage(body.content),
      original: originalFor(persona, body.content),
      scrubber: new SecretScrubber(links.map((link) => link.apiKey)),
    };
  }

  private withKey(body: RefineRequest): RefineRequest & { providerApiKey: string } {
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

  private cacheKey(job: ProviderJob, link: ProviderLink): Promise<string | undefined> {
    return this.cache.key({
      accountId: job.accountId, provider: link.provider, model: link.model, persona: `${job.personaId}:${job.persona.version}`,
      system: job.persona.system, user: job.user, providerApiKey: link.apiKey,
    });
  }

  /**
   * The primary link's key, and a stored answer at most `maxAge` old through the persona's
   * rules again (idempotent: it reports what remains).
   */
  private async fromCache(job: ProviderJob, policy: CachePolicy): Promise<{ key: string | undefined; hit: RefineResult | undefined }> {
    const { key, hit } = await this.lookUp(job, policy);
    if (!hit) return { key, hit: undefined };
    const { text, remaining } = this.enforce(job.persona, hit.answer.response, job.original);
    const usage = new UsageTally();
    this.usage.record(job.accountId, [{ provider: hit.answer.provider, model: hit.answer.model, outcome: 'cache_hit', tally: usage }]);
    const result: RefineResult = {
      response: text, providerMs: 0, violations: remaining, provider: hit.answer.provider, model: hit.answer.model,
      usage, personaVersion: job.persona.version, cache: { hit: true, ageSeconds: hit.ageSeconds },
    };
    return { key, hit: result };
  }

  /** The lookup as one `cache` span: `bypass` when not read (`no-cache`, `no-store`, or no key secret). */
  private async lookUp(job: ProviderJob, policy: CachePolicy): Promise<{ key: string | undefined; hit: CacheHit | undefined }> {
    const span = this.tracer.start('cache').set('persona_refine.cache.operation', 'lookup');
    try {
      const key = await this.cacheKey(job, job.links[0] as ProviderLink);
      if (key === undefined || policy.maxAgeMs === undefined) {
        span.set('persona_refine.cache.result', 'bypass');
        return { key, hit: undefined };
      }
      const hit = await this.cache.lookup(key, policy.maxAgeMs);
      span.set('persona_refine.cache.result', hit ? 'hit' : 'miss');
      return { key, hit };
    } catch (error) {
      span.fail(errorType(error));
      throw error;
    } finally {
      span.end();
    }
  }

  /** Stored under the key of whoever answered: the key that paid for it is the key that may read it. */
  private async store(job: ProviderJob, primaryKey: string, link: ProviderLink, response: string): Promise<void> {
    const span = this.tracer.start('cache').set('persona_refine.cache.operation', 'store');
    try {
      const key = link === job.links[0] ? primaryKey : await this.cacheKey(job, link);
      if (key !== undefined) await this.cache.save(key, { response, provider: link.provider, model: link.model, storedAt: Date.now() });
    } catch (error) {
      span.fail(errorType(error));
      throw error;
    } finally {
      span.end();
    }
  }

  private async throughCache(job: ProviderJob, policy: CachePolicy): Promise<RefineResult> {
    const { key, hit } = await this.fromCache(job, policy);
    if (hit) return hit;
    const { result, link } = await this.throughProviders(job);
    if (policy.write && key !== undefined) await this.store(job, key, link, result.response);
    return { ...result, cache: { hit: false } };
  }

  /** The result, and the link that answered: its key, not the primary's, is the one that paid. */
  private async throughProviders(job: ProviderJob): Promise<{ result: RefineResult; link: ProviderLink }> {
    const { accountId, persona, links, user, signal, original, scrubber } = job;
    const call: ChainCall = { system: persona.system, user, signal, deadline: Date.now() + this.timeoutMs, timeoutMs: this.timeoutMs };
    const started = performance.now();
    const contributions: ProviderUsage[] = [];
    let outcome = 'ok';
    this.metrics.refinesInFlight.inc();
    try {
      const generated = await firstAnswer((link, providerCall, budget) => this.providers.generate(link.provider, providerCall, budget), links, call, contributions);
      const first = { ...generated, text: generated.value.text };
      const usage = new UsageTally();
      const finish = (text: string, violations: RuleViolation[]): { result: RefineResult; link: ProviderLink } => {
        for (const contribution of contributions) usage.addTally(contribution.tally);
        const result = {
          response: text, providerMs: performance.now() - started, violations, provider: first.link.provider, model: first.link.model,
          usage, personaVersion: persona.version,
        };
        return { result, link: first.link };
      };
      const answer = scrubber.scrub(cleanModelOutput(first.text));
      if (!hasRules(persona.rules)) return finish(answer, []);
      let result = this.enforce(persona, answer, original);
      if (needsModelRepair(result.remaining)) {
        const repairing = this.tracer.start('repair').set('persona_refine.rules.violations', result.remaining.length);
        const before = result;
        result = await traced(repairing, this.tracer.within(repairing, () => this.repair(persona, before, original, first.link, first.usage, call, scrubber)));
      }
      return finish(result.text, result.remaining);
    } catch (error) {
      outcome = (error as { code?: string }).code ?? 'unknown';
      throw error;
    } finally {
      this.metrics.refinesInFlight.dec();
      this.usage.record(accountId, contributions);
      const seconds = (performance.now() - started) / 1000;
      for (const { provider, failure } of contributions) {
        const labels = { provider, outcome: failure ?? outcome };
        this.metrics.providerCalls.inc(labels);
        this.metrics.providerDuration.observe(labels, seconds);
      }
    }
  }

  /** The persona's deterministic rules, as one span with the count of what they could not fix. */
  private enforce(persona: CompiledPersona, text: string, original: PreservedOriginal | undefined): ReturnType<typeof enforce> {
    const span = this.tracer.start('rules');
    const result = enforce(persona.rules, text, original);
    span.set('persona_refine.rules.violations', result.remaining.length).end();
    return result;
  }

  /**
   * One repair call to the provider that answered, inside the same deadline,
   * for what only the model can fix (banned phrases, length, lost items). It
   * is best effort: if it fails or does worse, the first answer stands and its
   * violations are reported.
   */
  private async repair(
    persona: CompiledPersona,
    first: ReturnType<typeof enforce>,
    original: PreservedOriginal | undefined,
    link: ProviderLink,
    usage: ProviderUsage,
    call: ChainCall,
    scrubber: SecretScrubber,
  ): Promise<ReturnType<typeof enforce>> {
    const instructions = repairInstructions(first.remaining, first.text, original);
    try {
      const answer = await this.providers.generate(
        link.provider,
        { apiKey: link.apiKey, model: link.model, system: persona.system, user: `${instructions}\n\n${buildUserMessage(first.text)}`, signal: call.signal, onAttempt: countAttempts(usage).onAttempt },
        { deadline: call.deadline, timeoutMs: call.timeoutMs },
      );
      const second = this.enforce(persona, scrubber.scrub(cleanModelOutput(answer.text)), original);
      return second.remaining.length <= first.remaining.length ? second : first;
    } catch (error) {
      if (error instanceof ClientAbortedError) throw error;
      return first;
    }
  }
}

/** The content's items, found once per refine and compared with each answer. */
function originalFor(persona: CompiledPersona, content: string): PreservedOriginal | undefined {
  return persona.rules.preserve ? preservedOriginal(content) : undefined;
}
