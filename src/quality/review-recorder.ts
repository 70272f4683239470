/**
 * Holds the answers a persona's retention policy keeps (docs/quality.md, "The review queue") and
 * writes them in batches, as the QualityRecorder writes counts: an answer is one array push on
 * the request path, never a database read or write. The policy is the cached one when fresh
 * (`keep: none` lets the answer go at once); otherwise the flush reads it, for the whole batch
 * in one query. A sweep every `SWEEP_MS` deletes what is due.
 */
import type { Clock } from '../clock.js';
import { uuidv7 } from '../ids.js';
import type { ReviewRepository, ReviewRow } from '../storage/review-repository.js';
import { isRefusedValue } from '../storage/storage-errors.js';
import type { AnswerEvent, Exchange } from './answer-event.js';
import type { ReviewCandidates } from './live-answers.js';
import type { RetentionPolicies, RetentionPolicy } from './retention-policies.js';

/** Under `flagged`, how long an answer not yet flagged waits for feedback `down`. */
export const FLAG_WAIT_MS = 24 * 60 * 60_000;
export const SWEEP_MS = 10 * 60_000;
/** What answers waiting for the next flush may hold (UTF-16 bytes of their text); beyond it they are not kept. */
const PENDING_BYTES_MAX = 32 * 1024 * 1024;

type Held = AnswerEvent & { exchange: Exchange };

/** In the queue at once (`open`), held a day for feedback (`waiting`), or not kept. */
export function keptAs(policy: RetentionPolicy, answer: AnswerEvent): 'open' | 'waiting' | undefined {
  if (policy.keep === 'none') return undefined;
  if (policy.keep === 'all') return 'open';
  const flagged = (answer.minScore !== undefined && answer.score < answer.minScore) || answer.findings.some((finding) => finding.severity === 'required');
  if (flagged) return 'open';
  return policy.keep === 'flagged' ? 'waiting' : undefined;
}

const bytesOf = (held: Held) => 2 * (held.exchange.content.length + held.exchange.response.length) + 512;

export class ReviewRecorder implements ReviewCandidates {
  private pending: Held[] = [];
  private pendingBytes = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly repository: ReviewRepository,
    private readonly policies: RetentionPolicies,
    private readonly clock: Clock,
    private readonly options: {
      flushMs: number;
      /** REVIEW_QUEUE_MAX_ITEMS: kept answers per persona, the oldest dropped first. */
      maxPerPersona: number;
      onError: (error: unknown, message: string) => void;
    },
  ) {
    this.timers = [setInterval(() => void this.flush(), options.flushMs), setInterval(() => void this.sweep().catch((error: unknown) => options.onError(error, 'the review queue sweep failed')), SWEEP_MS)];
    for (const timer of this.timers) timer.unref();
  }

  consider(event: AnswerEvent): void {
    if (event.exchange === undefined) return;
    const policy = this.policies.cached(event.accountId, event.personaId);
    if (policy && keptAs(policy, event) === undefined) return;
    this.hold({ ...event, exchange: event.exchange });
  }

  /** Writes what is held; resolves once it is in the database (or failed and, within bounds, was kept). */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.write());
    this.flushing = next.catch(() => {});
    return next;
  }

  /** Deletes what is due: waiting answers after 24 h unless rated down, every kept one after its persona's `days`. */
  async sweep(): Promise<void> {
    await this.flush();
    const now = this.clock.now();
    await this.repository.sweep(now, new Date(now - FLAG_WAIT_MS).toISOString());
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.flush();
  }

  private hold(held: Held): boolean {
    const bytes = bytesOf(held);
    if (this.pendingBytes + bytes > PENDING_BYTES_MAX) return false;
    this.pending.push(held);
    this.pendingBytes += bytes;
    return true;
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (batch.length === 0) return;
    let rows: ReviewRow[] = [];
    try {
      rows = await this.kept(batch);
      await this.repository.keep(rows);
    } catch (error) {
      this.options.onError(error, 'answers kept for review could not be written');
      if (!isRefusedValue(error)) {
        const dropped = batch.filter((held) => !this.hold(held)).length;
        if (dropped > 0) this.options.onError(undefined, `${dropped} answers kept for review were dropped: the next flush holds too much already`);
        return;
      }
      // A value the database refuses is dropped alone.
      for (const row of rows) await this.repository.keep([row]).catch((rowError: unknown) => this.options.onError(rowError, 'an answer kept for review was refused by the database and dropped'));
    }
    const personas = new Map(rows.map((row) => [`${row.account_id}\u0000${row.persona_id}`, row]));
    try {
      for (const row of personas.values()) await this.repository.trim(row.account_id, row.persona_id, this.options.maxPerPersona);
    } catch (error) {
      // The next flush of the persona, or the sweep's `days`, bounds it again.
      this.options.onError(error, 'the review queue could not be trimmed to its bound');
    }
  }

  /** The rows the batch's policies keep; a request id sent twice keeps its newest answer; sorted, so instances lock rows in one order. */
  private async kept(batch: Held[]): Promise<ReviewRow[]> {
    const policyOf = await this.policies.of(batch);
    const byRequest = new Map<string, ReviewRow>();
    for (const held of batch) {
      const status = keptAs(policyOf(held.accountId, held.personaId), held);
      if (status) byRequest.set(`${held.accountId}\u0000${held.requestId}`, rowOf(held, status));
    }
    return [...byRequest.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  }
}

function rowOf(held: Held, status: 'open' | 'waiting'): ReviewRow {
  return {
    id: uuidv7(held.at), account_id: held.accountId, persona_id: held.personaId, request_id: held.requestId, version: held.version, endpoint: held.endpoint,
    created_at: new Date(held.at).toISOString(), content: held.exchange.content, response: held.exchange.response, score: Math.round(held.score),
    violations: JSON.stringify(held.exchange.violations.map(({ rule, severity, message, start, end, term }) => ({ rule, severity, message, start, end, ...(term === undefined ? {} : { term }) }))), status, sample_id: null,
  };
}
