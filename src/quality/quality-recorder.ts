/**
 * Counts each live answer into its persona's daily quality and the answer log (docs/quality.md).
 *
 * Batched as the UsageRecorder is: counts and log rows gather in memory and one upsert per
 * interval (`USAGE_FLUSH_MS`) writes them, so an answer never waits on a disk sync. A graceful
 * stop flushes everything; a `kill -9` loses at most the last interval. A failed flush keeps what
 * it held for the next one, except rows the database refuses for their values, dropped and reported.
 */
import type { FeedbackRepository, LoggedAnswer } from '../storage/feedback-repository.js';
import type { QualityCounts, QualityIncrement, QualityKey, QualityRepository } from '../storage/quality-repository.js';
import { isRefusedValue } from '../storage/storage-errors.js';
import { type AnswerEvent, utcDay } from './answer-event.js';

const emptyCounts = (): QualityCounts => ({ answers: 0, scoreSum: 0, belowMinScore: 0, withRequiredFindings: 0, feedbackUp: 0, feedbackDown: 0, inputTokens: 0, outputTokens: 0, findings: new Map() });
const aggregateId = (k: QualityKey) => `${k.accountId}\u0000${k.personaId}\u0000${k.version}\u0000${k.endpoint}\u0000${k.day}`;
const byId = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : a > b ? 1 : 0);

export class QualityRecorder {
  private pending = new Map<string, QualityIncrement>();
  private answers = new Map<string, LoggedAnswer>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly aggregates: QualityRepository,
    private readonly log: FeedbackRepository,
    flushMs: number,
    private readonly onFlushError: (error: unknown) => void,
    /** What the database refused (not for being unreachable): dropped and reported. */
    private readonly onRefused: (accountId: string, error: unknown) => void = () => {},
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(event: AnswerEvent): void {
    const day = utcDay(event.at);
    const counts = this.entry({ accountId: event.accountId, personaId: event.personaId, version: event.version, endpoint: event.endpoint, day });
    counts.answers += 1;
    counts.scoreSum += event.score;
    counts.inputTokens += event.inputTokens;
    counts.outputTokens += event.outputTokens;
    if (event.minScore !== undefined && event.score < event.minScore) counts.belowMinScore += 1;
    let required = false;
    for (const { rule, severity } of event.findings) {
      required ||= severity === 'required';
      counts.findings.set(rule, (counts.findings.get(rule) ?? 0) + 1);
    }
    if (required) counts.withRequiredFindings += 1;
    // Feedback names refines and chat completions; a check answers nothing to rate.
    if (event.endpoint === 'check') return;
    this.answers.set(`${event.accountId}\u0000${event.requestId}`, {
      accountId: event.accountId, requestId: event.requestId, keyId: event.keyId, personaId: event.personaId,
      version: event.version, endpoint: event.endpoint, answeredAt: new Date(event.at).toISOString(),
    });
  }

  /** Adds ratings (negative when a replaced feedback takes its rating back) to the answer's day. */
  rated(answer: LoggedAnswer, up: number, down: number): void {
    const { accountId, personaId, version, endpoint } = answer;
    const counts = this.entry({ accountId, personaId, version, endpoint, day: answer.answeredAt.slice(0, 10) });
    counts.feedbackUp += up;
    counts.feedbackDown += down;
  }

  /** Writes what has been counted so far; resolves once it is in the database (or failed and was kept). */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.write());
    this.flushing = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private entry(key: QualityKey): QualityIncrement {
    const id = aggregateId(key);
    let entry = this.pending.get(id);
    if (!entry) this.pending.set(id, (entry = { ...key, ...emptyCounts() }));
    return entry;
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    const answers = this.answers;
    this.pending = new Map();
    this.answers = new Map();
    // Sorted, so instances flushing the same rows lock them in the same order (no deadlock).
    const increments = [...batch.entries()].sort(byId).map(([, increment]) => increment);
    const logged = [...answers.entries()].sort(byId).map(([, answer]) => answer);
    if (increments.length > 0) {
      await this.aggregates.add(increments).catch((error: unknown) =>
        this.recover(error, increments, (one) => this.aggregates.add(one), (kept) => kept.forEach((i) => this.merge(i))),
      );
    }
    if (logged.length > 0) {
      await this.log.log(logged).catch((error: unknown) =>
        this.recover(error, logged, (one) => this.log.log(one), (kept) => kept.forEach((a) => this.keepAnswer(a))),
      );
    }
  }

  /** After a failed batch: when the database refused a value, one row at a time (only those it refuses are dropped); else all kept. */
  private async recover<T extends { accountId: string }>(error: unknown, rows: T[], write: (rows: T[]) => Promise<void>, keep: (rows: T[]) => void): Promise<void> {
    this.onFlushError(error);
    if (!isRefusedValue(error)) return keep(rows);
    for (const row of rows) {
      try {
        await write([row]);
      } catch (rowError) {
        if (isRefusedValue(rowError)) this.onRefused(row.accountId, rowError);
        else keep([row]);
      }
    }
  }

  private merge(increment: QualityIncrement): void {
    const entry = this.entry(increment);
    entry.answers += increment.answers;
    entry.scoreSum += increment.scoreSum;
    entry.belowMinScore += increment.belowMinScore;
    entry.withRequiredFindings += increment.withRequiredFindings;
    entry.feedbackUp += increment.feedbackUp;
    entry.feedbackDown += increment.feedbackDown;
    entry.inputTokens += increment.inputTokens;
    entry.outputTokens += increment.outputTokens;
    for (const [rule, n] of increment.findings) entry.findings.set(rule, (entry.findings.get(rule) ?? 0) + n);
  }

  private keepAnswer(answer: LoggedAnswer): void {
    const id = `${answer.accountId}\u0000${answer.requestId}`;
    // A newer answer to the same request id counted meanwhile wins.
    if (!this.answers.has(id)) this.answers.set(id, answer);
  }
}
