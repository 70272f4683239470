/**
 * The judge (docs/voice-score.md, "The judge"): a provider rates a text against the persona's
 * descriptive attributes through its structured output. It goes through the provider registry
 * like any call (deadline, retries, error mapping, key scrubbing) and is counted into usage and
 * metrics like any call; an answer that does not fit the schema is asked again once. A judge
 * that still fails never fails its request: the verdict is then `{ error }`, scrubbed.
 */
import { type Clock, systemClock } from '../clock.js';
import { ClientAbortedError, DomainError, invalidRequest } from '../errors.js';
import type { Metrics } from '../metrics.js';
import { type ProviderRegistry, singleTurn } from '../providers/index.js';
import { failedCallOf } from '../providers/provider-call.js';
import type { SecretScrubber } from '../providers/secret-scrubber.js';
import { errorType, noTracing, type Tracer } from '../tracing/tracer.js';
import type { ProviderUsage, UsageRecorder } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';
import { readRatings } from './judge-answer.js';
import { type JudgeRequest, type JudgeVerdict, scrubbedVerdict } from './judge-verdict.js';
import { descriptiveAttributes, type JudgedPersona, judgeSystemMessage, judgeUserMessage, ratingsOutput, unratedWarning } from './rubric.js';

/** Who judges, resolved: the model is the request's or the provider's default. */
export interface JudgeTarget {
  provider: string;
  apiKey: string;
  model: string;
}

/**
 * A request's judge, the one thing a refine or a check hands the Judge besides the texts to rate:
 * who judges, for whom, against which persona, under the request's signal, keys and time.
 */
export interface JudgeJob {
  accountId: string;
  target: JudgeTarget;
  persona: JudgedPersona;
  signal: AbortSignal;
  /** PROVIDER_TIMEOUT_MS: the judge's time, its retries included. */
  timeoutMs: number;
  /** Every key of the request, the judge's included: a model may repeat what it saw. */
  scrubber: SecretScrubber;
}

export interface Judgement {
  verdict: JudgeVerdict;
  /** The judge's calls and tokens (X-Usage adds them); empty when no call was needed. */
  usage: UsageTally;
}

/** A judge answer that does not fit the schema gets one more call; then the judge has failed. */
const ANSWERS = 2;

export class Judge {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly usage: UsageRecorder,
    private readonly metrics: Metrics,
    private readonly tracer: Tracer = noTracing,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Checks the provider before any call; `field` names the request member in the 400. */
  target(request: JudgeRequest, field = 'judge'): JudgeTarget {
    if (!this.providers.has(request.provider)) {
      throw invalidRequest(`${field}.provider must be a provider that calls a model, one of ${this.providers.ids().join(', ')}; got "${request.provider.slice(0, 64)}"`);
    }
    return { provider: request.provider, apiKey: request.providerApiKey, model: request.model ?? this.providers.defaultModel(request.provider) };
  }

  /**
   * Rates `text` (already scrubbed of every key of the request) by `deadline` (epoch ms): the
   * request's provider deadline when it has one to share (a refine's run), else its own.
   * Rejects only with ClientAbortedError (the client left); every other failure is the verdict's
   * `error`. The one way out of the judge: whatever its verdict quotes of an answer is scrubbed here.
   */
  async judge(job: JudgeJob, text: string, deadline = this.clock.now() + job.timeoutMs): Promise<Judgement> {
    const { verdict, usage } = await this.rate(job, text, deadline);
    return { verdict: scrubbedVerdict(verdict, job.scrubber), usage };
  }

  private async rate(job: JudgeJob, text: string, deadline: number): Promise<Judgement> {
    const { provider, model } = job.target;
    const rubric = descriptiveAttributes(job.persona.attributes);
    const tally = new UsageTally();
    if (rubric.length === 0) return { verdict: { provider, model, ratings: [], warning: unratedWarning(job.persona) }, usage: tally };
    const contribution: ProviderUsage = { provider, model, outcome: 'judged', tally };
    const span = this.tracer.start('judge').set('persona_refine.judge.attributes', rubric.length);
    const started = performance.now();
    let outcome = 'ok';
    try {
      const call = {
        apiKey: job.target.apiKey, scrubber: job.scrubber, model, conversation: singleTurn(judgeSystemMessage(job.persona, rubric), judgeUserMessage(text)),
        output: ratingsOutput(rubric), signal: job.signal,
      };
      const attributes = rubric.map(({ key }) => key);
      let problem = '';
      for (let answer = 1; answer <= ANSWERS; answer++) {
        const answered = await this.providers.generate(provider, call, { deadline, timeoutMs: job.timeoutMs });
        tally.addFailedCalls(answered.failedAttempts);
        tally.addAnswer(answered.usage);
        const read = readRatings(answered.text, attributes);
        if ('ratings' in read) return { verdict: { provider, model, ratings: read.ratings }, usage: tally };
        problem = read.problem;
      }
      outcome = 'invalid_answer';
      span.fail(outcome);
      return { verdict: { error: `provider "${provider}" gave no usable ratings in ${ANSWERS} answers: the last one ${problem}` }, usage: tally };
    } catch (error) {
      tally.addFailedCalls(failedCallOf(error).failedAttempts);
      outcome = error instanceof DomainError ? error.code : errorType(error);
      span.fail(errorType(error));
      if (error instanceof ClientAbortedError || !(error instanceof DomainError)) throw error;
      return { verdict: { error: error.message }, usage: tally };
    } finally {
      span.end();
      this.usage.record(job.accountId, [contribution]);
      const labels = { provider, outcome };
      this.metrics.providerCalls.inc(labels);
      this.metrics.providerDuration.observe(labels, (performance.now() - started) / 1000);
      this.metrics.providerDurationLegacy.observe(labels, (performance.now() - started) / 1000);
    }
  }
}
