/**
 * A persona drafted from sample texts (POST /v1/personas/draft; docs/rules-and-attributes.md,
 * "Drafting a persona from samples"): one provider call for structured output, as the judge
 * makes, read leniently against the catalogue (draft-answer.ts). Nothing is stored: the draft is
 * a body POST /v1/personas accepts as it is. The call goes through the provider registry like
 * any (deadline, retries, error mapping, key scrubbing), so a provider that fails fails the
 * draft as it fails a refine; a model that answers badly gives a draft with warnings.
 */
import { type Clock, systemClock } from '../../clock.js';
import { DomainError, invalidRequest } from '../../errors.js';
import type { Metrics } from '../../metrics.js';
import { isOversizedAnswer } from '../../providers/attempt.js';
import { type ProviderRegistry, singleTurn } from '../../providers/index.js';
import { failedCallOf } from '../../providers/provider-call.js';
import { SecretScrubber } from '../../providers/secret-scrubber.js';
import { errorType, noTracing, type Tracer } from '../../tracing/tracer.js';
import type { ProviderUsage, UsageRecorder } from '../../usage/usage-recorder.js';
import { UsageTally } from '../../usage/usage-tally.js';
import { type DraftWarning, readDraft, type ReadDraft } from './draft-answer.js';
import { draftOutput, draftSystemMessage, draftUserMessage } from './draft-prompt.js';

/** What to draft from (POST /v1/personas/draft adapts its body to this). */
export interface DraftRequest {
  samples: string[];
  provider: string;
  /** A secret exactly like a refine's providerApiKey. */
  providerApiKey: string;
  model?: string;
  /** The draft's name; the model's (or a default) when absent. */
  name?: string;
}

/** A body POST /v1/personas accepts as it is, with why each attribute was drafted. */
export interface PersonaDraft {
  name: string;
  attributes: Record<string, unknown>;
  /** One short quote from a sample per attribute the model gave one for, each found in a sample. */
  evidence: Record<string, string>;
  /** What of the model's answer was dropped, and why; absent when nothing was. */
  warnings?: DraftWarning[];
}

export interface DraftResult {
  draft: PersonaDraft;
  /** The call's tokens and HTTP attempts (X-Usage). */
  usage: UsageTally;
}

/** The name of a draft when neither the request nor the model gave one. */
export const DEFAULT_DRAFT_NAME = 'Drafted persona';

export class PersonaDrafter {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly usage: UsageRecorder,
    private readonly metrics: Metrics,
    /** PROVIDER_TIMEOUT_MS: the draft's time, its retries included. */
    private readonly timeoutMs: number,
    private readonly tracer: Tracer = noTracing,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Checks the provider before anything is spent: the `rules` provider calls no model and cannot draft. */
  checkProvider(provider: string): void {
    if (!this.providers.has(provider)) {
      throw invalidRequest(`provider must be a provider that calls a model, one of ${this.providers.ids().join(', ')}; got "${provider.slice(0, 64)}"`);
    }
  }

  /** Rejects with the provider's DomainError (502, 504, 429, or 400 for a refused key) or ClientAbortedError. */
  async draft(accountId: string, request: DraftRequest, signal: AbortSignal): Promise<DraftResult> {
    this.checkProvider(request.provider);
    const { provider, providerApiKey: apiKey } = request;
    const model = request.model ?? this.providers.defaultModel(provider);
    const scrubber = new SecretScrubber([apiKey]);
    const tally = new UsageTally();
    const contribution: ProviderUsage = { provider, model, outcome: 'answered', tally };
    const span = this.tracer.start('persona.draft').set('persona_refine.draft.samples', request.samples.length);
    const started = performance.now();
    let outcome = 'ok';
    try {
      const call = {
        apiKey, scrubber, model, signal, output: draftOutput(), conversation: singleTurn(draftSystemMessage(), draftUserMessage(request.samples)),
      };
      let read: ReadDraft;
      try {
        const answered = await this.providers.generate(provider, call, { deadline: this.clock.now() + this.timeoutMs, timeoutMs: this.timeoutMs });
        tally.addFailedCalls(answered.failedAttempts);
        tally.addAnswer(answered.usage);
        read = readDraft(answered.text, request.samples, scrubber);
      } catch (error) {
        if (!isOversizedAnswer(error)) throw error;
        // The provider answered; what its model wrote is past any draft's size. Its tokens went unreported.
        tally.addFailedCalls(failedCallOf(error).failedAttempts - 1);
        tally.addAnswer(undefined);
        read = { attributes: {}, evidence: {}, warnings: [{ message: 'the model answered with more than 8 MiB; nothing of it was used' }] };
      }
      // Trimmed as POST /v1/personas trims it, so a blank name cannot make the draft one it refuses.
      const name = request.name?.trim() || read.name || DEFAULT_DRAFT_NAME;
      const draft: PersonaDraft = { name, attributes: read.attributes, evidence: read.evidence, ...(read.warnings.length > 0 ? { warnings: read.warnings } : {}) };
      span.set('persona_refine.draft.attributes', Object.keys(read.attributes).length);
      return { draft, usage: tally };
    } catch (error) {
      tally.addFailedCalls(failedCallOf(error).failedAttempts);
      contribution.outcome = error instanceof DomainError && error.code === 'client_closed_request' ? 'aborted' : 'failed';
      outcome = error instanceof DomainError ? error.code : errorType(error);
      span.fail(errorType(error));
      throw error;
    } finally {
      span.end();
      this.usage.record(accountId, [contribution]);
      const labels = { provider, outcome };
      this.metrics.providerCalls.inc(labels);
      this.metrics.providerDuration.observe(labels, (performance.now() - started) / 1000);
      this.metrics.providerDurationLegacy.observe(labels, (performance.now() - started) / 1000);
    }
  }
}
