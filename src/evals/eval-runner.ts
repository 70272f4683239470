/**
 * Executes evaluation runs on this instance (docs/evaluations.md, "Runs"). Each
 * sample is one refine through the normal pipeline, pinned to the run's
 * version, admitted like a refine request: the account's concurrency slot on
 * this instance, then the key's budgets, inside the key's usage context. The
 * provider and judge keys live only in the job held here, for the run's time.
 *
 * State is in the database: every result is written as it finishes, and the
 * run says which instance runs it and renews that every HEARTBEAT_MS. A run
 * whose heartbeat is older than STALE_AFTER_MS (its instance died or restarted)
 * is ended as interrupted by whichever instance sweeps first.
 */
import { hasExpired } from '../accounts/expiry.js';
import { ClientAbortedError, DomainError } from '../errors.js';
import type { ConcurrencyLimiter } from '../limits/concurrency-limiter.js';
import type { RefineRequest } from '../refine/refine-request.js';
import type { RefineResult, RefineService } from '../refine/refine-service.js';
import type { EvalRepository } from '../storage/eval-repository.js';
import { estimatedRefineTokens } from '../usage/token-estimate.js';
import { type EvalUsage, expectationOutcomes, samplePassed, type ScoredResult, summarize } from './evaluation.js';
import type { Sample } from './samples.js';

export const HEARTBEAT_MS = 2_000;
export const STALE_AFTER_MS = 10_000;
export const SWEEP_MS = 5_000;
/** The longest our own 429 (a key's budget) is waited out before the sample is given up. */
const MAX_BUDGET_WAIT_SECONDS = 60;
/** How often a sample waiting for the account's concurrency slot asks again. */
const SLOT_POLL_MS = 50;

export const INTERRUPTED_MESSAGE = 'the instance running this evaluation stopped before it finished; what finished is kept';
export const KEY_REVOKED_MESSAGE = 'the key that started this run was revoked; what finished is kept';
export const KEY_EXPIRED_MESSAGE = 'the key that started this run expired; what finished is kept';

/** The starting key's budgets, metered as for POST /v1/refine (src/usage/metering.ts). */
export interface RefineAdmission {
  /** Runs a refine that may spend about `estimate` tokens as metered work; throws the same 429 a refine request would get. */
  run<T>(estimate: number, refine: () => Promise<T>): Promise<T>;
}

export interface EvalJob {
  evalId: string;
  accountId: string;
  keyId: string;
  personaId: string;
  version: number;
  minScore: number | undefined;
  samples: Sample[];
  concurrency: number;
  /** The refine each sample makes, less personaId, version and content; holds the keys. */
  refine: Omit<RefineRequest, 'personaId' | 'content' | 'personaVersion' | 'personaLabel'>;
  admission: RefineAdmission;
}

interface ActiveJob {
  job: EvalJob;
  abort: AbortController;
}

export interface RunnerLog {
  warn(detail: Record<string, unknown>, message: string): void;
  error(detail: Record<string, unknown>, message: string): void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

function usageOf(result: RefineResult): EvalUsage {
  return { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens, providerCalls: result.usage.providerCalls };
}

export class EvalRunner {
  private readonly active = new Map<string, ActiveJob>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly runs: EvalRepository,
    private readonly refine: RefineService,
    private readonly slots: ConcurrencyLimiter,
    /** This process's id for the runs it owns. */
    readonly owner: string,
    private readonly log: RunnerLog,
  ) {}

  /** Starts the heartbeat and the sweep for runs whose instance is gone (one sweep right away). */
  startBackground(): void {
    const every = (ms: number, work: () => Promise<unknown>) => {
      const timer = setInterval(() => void work().catch((error: unknown) => this.log.warn({ err: error }, 'evaluation upkeep failed; retried')), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(HEARTBEAT_MS, () => this.heartbeat());
    every(SWEEP_MS, () => this.sweep());
    void this.sweep().catch((error: unknown) => this.log.warn({ err: error }, 'evaluation sweep failed; retried'));
  }

  start(job: EvalJob): void {
    const abort = new AbortController();
    this.active.set(job.evalId, { job, abort });
    void this.execute(job, abort.signal)
      .catch((error: unknown) => this.log.error({ err: error, evalId: job.evalId }, 'evaluation run failed'))
      .finally(() => this.active.delete(job.evalId));
  }

  /** Stops a run this instance executes (cancelled, or its persona deleted): what finished is kept. */
  stop(evalId: string): void {
    this.active.get(evalId)?.abort.abort();
  }

  /** Shutting down: the runs here end as interrupted now, not after their heartbeat went stale. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    const at = new Date().toISOString();
    await Promise.all(
      [...this.active.values()].map(async ({ job, abort }) => {
        abort.abort();
        await this.runs.finish(job.evalId, { status: 'interrupted', error: INTERRUPTED_MESSAGE, at, owner: this.owner });
      }),
    );
  }

  async sweep(): Promise<void> {
    const now = Date.now();
    await this.runs.interruptStale(new Date(now - STALE_AFTER_MS).toISOString(), new Date(now).toISOString(), INTERRUPTED_MESSAGE);
  }

  private async heartbeat(): Promise<void> {
    if (this.active.size === 0) return;
    await this.endRunsOfLapsedKeys();
    const alive = new Set(await this.runs.heartbeat(this.owner, new Date().toISOString()));
    // Ended by another instance (a cancel) or deleted with its persona: stop paying for it.
    for (const [evalId, { abort }] of this.active) if (!alive.has(evalId)) abort.abort();
  }

  /**
   * A run spends with the authority of the key that started it: once that key is revoked or
   * has expired, the run ends as cancelled with the reason. Read from storage, as the key may
   * have been revoked through another instance, whose answer this one never sees.
   */
  private async endRunsOfLapsedKeys(): Promise<void> {
    const now = new Date();
    for (const { evalId, revokedAt, expiresAt } of await this.runs.startingKeys(this.owner)) {
      const reason = revokedAt !== null ? KEY_REVOKED_MESSAGE : hasExpired(expiresAt, now.getTime()) ? KEY_EXPIRED_MESSAGE : undefined;
      if (reason === undefined) continue;
      await this.runs.finish(evalId, { status: 'cancelled', error: reason, at: now.toISOString(), owner: this.owner });
      this.stop(evalId);
    }
  }

  private async execute(job: EvalJob, signal: AbortSignal): Promise<void> {
    if (!(await this.runs.markRunning(job.evalId, this.owner, new Date().toISOString()))) return;
    const finished: ScoredResult[] = [];
    let writes = Promise.resolve(true);
    // Results are written one after another in the order they finished, so `seq` never has a gap a reader could skip.
    const record = (result: ScoredResult, position: number) => {
      finished.push(result);
      const seq = finished.length;
      const { usage: _usage, ...answered } = result;
      const summary = JSON.stringify(summarize(finished, job.minScore));
      writes = writes.then(async (open) => {
        if (!open) return false;
        const row = { eval_id: job.evalId, seq, sample_id: result.sampleId, position, result: JSON.stringify(answered) };
        const written = await this.runs.addResult(job.evalId, this.owner, row, summary);
        if (!written) this.stop(job.evalId);
        return written;
      });
      return writes;
    };
    let next = 0;
    const worker = async () => {
      while (!signal.aborted && next < job.samples.length) {
        const position = next++;
        const sample = job.samples[position] as Sample;
        const result = await this.sample(job, sample, signal);
        if (result === undefined || signal.aborted) return;
        await record(result, position);
      }
    };
    await Promise.all(Array.from({ length: Math.min(job.concurrency, job.samples.length) }, worker));
    if (!(await writes) || signal.aborted) return;
    const everyOneFailed = finished.length > 0 && finished.every((result) => result.error !== undefined);
    const firstError = finished.find((result) => result.error !== undefined)?.error?.message;
    await this.runs.finish(job.evalId, {
      status: everyOneFailed ? 'failed' : 'completed',
      error: everyOneFailed ? `every sample failed; the first: ${firstError}` : null,
      at: new Date().toISOString(),
      owner: this.owner,
    });
  }

  /** One sample's result; undefined when the run was stopped meanwhile. */
  private async sample(job: EvalJob, sample: Sample, signal: AbortSignal): Promise<ScoredResult | undefined> {
    const failed = (error: DomainError): ScoredResult => ({
      sampleId: sample.id, response: null, score: null, scores: null, violations: [], passed: false, expectations: [],
      error: { error: error.status, message: error.message },
      usage: { inputTokens: 0, outputTokens: 0, providerCalls: 0 },
    });
    for (;;) {
      if (signal.aborted) return undefined;
      const release = this.slots.tryAcquire(job.accountId);
      if (!release) {
        await sleep(SLOT_POLL_MS, signal);
        continue;
      }
      let waitSeconds: number | undefined;
      try {
        const variant = sample.variant ?? job.refine.variant;
        const request = { ...job.refine, personaId: job.personaId, personaVersion: job.version, ...(variant === undefined ? {} : { variant }), content: sample.content };
        const result = await job.admission.run(estimatedRefineTokens(request), () => this.refine.refine(job.accountId, request, signal));
        return this.scored(job, sample, result);
      } catch (error) {
        if (signal.aborted || error instanceof ClientAbortedError) return undefined;
        if (!(error instanceof DomainError)) {
          this.log.error({ err: error, evalId: job.evalId }, 'evaluation sample failed unexpectedly');
          return failed(new DomainError('internal', 'internal error; the evaluation id identifies it in our logs'));
        }
        // Our own 429 (the key's budgets) is paced, as a client would retry; the provider's is the sample's answer.
        const retryAfter = Number(error.headers['retry-after']);
        if (error.code !== 'rate_limited' || !(retryAfter <= MAX_BUDGET_WAIT_SECONDS)) return failed(error);
        waitSeconds = retryAfter;
      } finally {
        release();
      }
      await sleep(waitSeconds * 1000, signal);
    }
  }

  private scored(job: EvalJob, sample: Sample, result: RefineResult): ScoredResult {
    const violations = result.violations.map(({ rule, severity, message, start, end, term }) => ({ rule, severity, message, start, end, ...(term === undefined ? {} : { term }) }));
    const { judge } = result;
    const expectations = expectationOutcomes(sample.expect, result.response);
    return {
      sampleId: sample.id,
      response: result.response,
      score: result.score.score,
      scores: result.score.scores,
      violations,
      passed: samplePassed(violations, result.score.score, job.minScore, expectations),
      expectations,
      ...(judge === undefined ? {} : { judge }),
      usage: usageOf(result),
    };
  }
}
