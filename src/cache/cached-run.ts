/**
 * The opt-in answer cache around a run, one path for POST /v1/refine and POST
 * /v1/chat/completions (docs/usage-cache-fallbacks.md, "The answer cache"):
 * the lookup under the first link's key, a hit given as a run (no provider call, usage
 * counted as a cache hit, the persona's rules as on the original answer), and a whole fresh
 * answer stored under the key of the link that answered, whose key paid for it.
 */
import type { ProviderLink } from '../refine/fallback-chain.js';
import { type KnownResult, personaOf, type RefineRun, type RunEnd, type RunJob, wholeText } from '../refine/refine-run.js';
import { enforceInSpan } from '../refine/rules-span.js';
import type { RuleFinding } from '../rules/index.js';
import { errorType, type Tracer } from '../tracing/tracer.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';
import type { AnswerCache, CacheHit } from './answer-cache.js';
import type { CachePolicy } from './cache-control.js';

/** A run's job, with the persona id the cache key names. */
export interface CachedRunJob extends Pick<RunJob, 'accountId' | 'persona' | 'links' | 'conversation' | 'original'> {
  personaId: string;
}

/** What a service makes of a known result: its score (and its judge's verdict, when it has one). */
export type Finish = (result: { response: string; violations: RuleFinding[]; usage: UsageTally }) => Promise<KnownResult>;

/** Starts the run itself on a miss; `onEnd` stores its whole answer. */
export type StartRun = (onEnd: (end: RunEnd, link: ProviderLink) => Promise<void>) => Promise<RefineRun>;

export class CachedRuns {
  constructor(
    private readonly cache: AnswerCache,
    private readonly usage: UsageRecorder,
    private readonly tracer: Tracer,
  ) {}

  async run(job: CachedRunJob, policy: CachePolicy, finish: Finish, start: StartRun): Promise<RefineRun> {
    const { key, hit } = await this.lookUp(job, policy);
    if (hit) return this.fromCache(job, hit, finish);
    const store = async (end: RunEnd, link: ProviderLink) => {
      if (policy.write && key !== undefined) await this.store(job, key, link, end);
    };
    return { ...(await start(store)), cache: { hit: false } };
  }

  private key(job: CachedRunJob, link: ProviderLink): Promise<string | undefined> {
    return this.cache.key({
      accountId: job.accountId, provider: link.provider, model: link.model, persona: `${job.personaId}:${job.persona.version}${job.persona.variant === undefined ? '' : `/${job.persona.variant}`}`,
      conversation: job.conversation, providerApiKey: link.apiKey,
    });
  }

  /**
   * A stored answer, through the persona's rules again when they applied to it (idempotent: it
   * reports what remains), its tool calls and finish reason as stored.
   */
  private async fromCache(job: CachedRunJob, hit: CacheHit, finish: Finish): Promise<RefineRun> {
    const { answer } = hit;
    const { text, remaining } = answer.rules === 'applied' ? enforceInSpan(this.tracer, job.persona, answer.response, job.original) : { text: answer.response, remaining: [] };
    const usage = new UsageTally();
    this.usage.record(job.accountId, [{ provider: answer.provider, model: answer.model, outcome: 'cache_hit', tally: usage }]);
    const known = await finish({ response: text, violations: remaining, usage });
    return {
      ...personaOf(job.persona), provider: answer.provider, model: answer.model, cache: { hit: true, ageSeconds: hit.ageSeconds },
      pieces: wholeText(known, { toolCalls: answer.toolCalls, finishReason: answer.finishReason, rules: answer.rules }),
    };
  }

  /** The lookup as one `cache` span: `bypass` when not read (`no-cache`, `no-store`, or no key secret). */
  private async lookUp(job: CachedRunJob, policy: CachePolicy): Promise<{ key: string | undefined; hit: CacheHit | undefined }> {
    const span = this.tracer.start('cache').set('persona_refine.cache.operation', 'lookup');
    try {
      const key = await this.key(job, job.links[0] as ProviderLink);
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
  private async store(job: CachedRunJob, primaryKey: string, link: ProviderLink, end: RunEnd): Promise<void> {
    const span = this.tracer.start('cache').set('persona_refine.cache.operation', 'store');
    try {
      const key = link === job.links[0] ? primaryKey : await this.key(job, link);
      if (key !== undefined) {
        await this.cache.save(key, {
          response: end.response, toolCalls: end.toolCalls, finishReason: end.finishReason, rules: end.rules,
          provider: link.provider, model: link.model, storedAt: Date.now(),
        });
      }
    } catch (error) {
      span.fail(errorType(error));
      throw error;
    } finally {
      span.end();
    }
  }
}
