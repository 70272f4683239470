/**
 * The chat completion use case: an OpenAI Chat Completions request answered in a persona's
 * voice in one provider call. It is the refine run (src/refine/refine-run.ts) given another
 * conversation: the persona's instructions for generating, then the caller's messages; the
 * persona's rules then apply to the answer's text exactly as to a refine's (fixes, one repair
 * call while a required finding remains), with no `preserve` since there is no original.
 * Validation that needs no I/O comes first, then the persona lookup; nothing reaches a
 * provider unless both pass. With `Cache-Control`, the refine's answer cache (cached-run.ts)
 * answers a conversation asked before.
 */
import type { AnswerCache } from '../cache/answer-cache.js';
import type { CachePolicy } from '../cache/cache-control.js';
import { CachedRuns, type Finish } from '../cache/cached-run.js';
import { invalidRequest } from '../errors.js';
import type { ProviderRegistry } from '../providers/index.js';
import { SecretScrubber } from '../providers/secret-scrubber.js';
import type { CompiledPersonas } from '../refine/compiled-personas.js';
import { type AnswerObserver, unobserved } from '../quality/answer-event.js';
import { observed, type RefineRun, type RunDependencies, type RunMode, runThroughProviders } from '../refine/refine-run.js';
import { RULES_PROVIDER } from '../refine/refine-service.js';
import { scoreOf } from '../scoring/persona-score.js';
import { noTracing, traced } from '../tracing/tracer.js';
import { chatConversation } from './chat-conversation.js';
import type { ChatRequest } from './chat-request.js';
import { modelTarget, type PersonaReference } from './chat-target.js';
import { generationSystemMessage } from './generation-prompt.js';

export interface ChatJob {
  accountId: string;
  request: ChatRequest;
  persona: PersonaReference;
  /** The caller's own key for the provider `model` names, for this call only. */
  providerApiKey: string | undefined;
  signal: AbortSignal;
  /** Set when the request asked for the answer cache (`Cache-Control`). */
  cachePolicy?: CachePolicy;
}

/** A model a chat completion may name: a provider's default one. */
export interface ChatModel {
  provider: string;
  model: string;
}

export class ChatService {
  private readonly cached: CachedRuns;

  constructor(
    private readonly personas: CompiledPersonas,
    private readonly run: RunDependencies,
    cache: AnswerCache,
    /** Hears of every answer that stands (quality on live traffic, docs/quality.md). */
    private readonly answers: AnswerObserver = unobserved,
  ) {
    this.cached = new CachedRuns(cache, run.usage, run.tracer ?? noTracing);
  }

  private get providers(): ProviderRegistry {
    return this.run.providers;
  }

  /** Every provider's default model, built-in providers first, then the operator's endpoints. */
  models(): ChatModel[] {
    return this.providers.describe().map(({ id, defaultModel }) => ({ provider: id, model: defaultModel }));
  }

  /**
   * Resolves once the provider answered (its first text or tool call, when streaming), rejecting
   * exactly as the run fails before that; `collect` gives the whole answer at the run's end.
   */
  async start({ accountId, request, persona: reference, providerApiKey, signal, cachePolicy }: ChatJob, mode: RunMode): Promise<RefineRun> {
    const target = modelTarget(request.model);
    if (target.provider === RULES_PROVIDER) {
      throw invalidRequest('model "rules" applies rules to a text it is given and writes none; name a provider that generates, e.g. "openai/gpt-5.4-mini"');
    }
    if (!this.providers.has(target.provider)) {
      throw invalidRequest(`model names unknown provider "${target.provider.slice(0, 64)}"; use "<provider>/<model>" or "<provider>" with one of: ${this.providers.ids().join(', ')}`);
    }
    // Translated before any I/O, so a request no provider could take fails without a lookup.
    const untold = chatConversation('', request);
    if (providerApiKey === undefined) throw invalidRequest(`X-Provider-Api-Key is required: the caller's own key for provider "${target.provider}"`);
    const tracer = this.run.tracer ?? noTracing;
    const loading = tracer.start('persona.load').set('persona_refine.persona_id', reference.personaId);
    const persona = await traced(loading, this.personas.get(accountId, reference.personaId, reference));
    const link = { provider: target.provider, apiKey: providerApiKey, model: target.model ?? this.providers.defaultModel(target.provider) };
    const job = {
      accountId, personaId: reference.personaId, persona, links: [link], signal, original: undefined,
      conversation: { ...untold, system: generationSystemMessage(persona) },
      scrubber: new SecretScrubber([providerApiKey]),
    };
    // No judge here: a hit's score is its rules' alone, as the completion's was.
    const finish: Finish = async (result) => ({ ...result, score: scoreOf(result.violations, undefined) });
    const run = cachePolicy
      ? await this.cached.run(job, cachePolicy, finish, (store) => runThroughProviders(this.run, job, mode, store))
      : await runThroughProviders(this.run, job, mode);
    // An answer whose rules were skipped (tool calls, JSON) is an answer still, with its score.
    const asked = untold.messages.filter((message) => message.role === 'user').at(-1)?.text ?? '';
    return observed(run, ({ score, violations, response, usage }) =>
      this.answers.answered({
        accountId, personaId: reference.personaId, version: persona.version, minScore: persona.minScore, score: score.score, findings: violations,
        inputTokens: usage.inputTokens, outputTokens: usage.outputTokens,
        exchange: { content: asked, response, violations },
      }),
    );
  }
}
