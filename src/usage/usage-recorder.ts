/**
 * Counts each refine into the account's daily usage and Prometheus.
 *
 * Database writes are batched: counts gather in memory and one upsert per
 * interval (`USAGE_FLUSH_MS`, default 1 s) adds them, so the refine path never
 * waits on a disk sync. The price: a `kill -9` loses at most the counts of the
 * last interval (plus a flush that was in flight). A graceful stop flushes
 * everything. A failed flush keeps its counts for the next one, except a row the
 * database refuses for its values, which is dropped alone, never with the batch.
 */
import type { Metrics } from '../metrics.js';
import { isRefusedValue } from '../storage/storage-errors.js';
import type { UsageCounts, UsageIncrement, UsageRepository } from '../storage/usage-repository.js';
import type { UsageTally } from './usage-tally.js';
import { requestUsage } from './request-usage.js';

/** What one provider (or the cache) contributed to a refine. */
export interface ProviderUsage {
  provider: string;
  model: string;
  /**
   * answered: it produced the answer; cache_hit: the cache did, for it;
   * failed: it failed and the refine moved on or gave up; aborted: the client left;
   * judged: it rated a text (docs/voice-score.md, "The judge"), neither a refine nor a failure.
   */
  outcome: 'answered' | 'cache_hit' | 'failed' | 'aborted' | 'judged';
  /** The error class it failed with, for the provider metrics. */
  failure?: string;
  tally: UsageTally;
  /** When its call began (performance.now()), and how long this provider's own calls took: its duration metric. */
  startedAt?: number;
  durationMs?: number;
}

/** Beyond this many provider/model pairs, Prometheus sees model="other": callers choose model names. */
const MAX_MODEL_LABELS = 500;

const utcDay = (now: Date) => now.toISOString().slice(0, 10);

export class UsageRecorder {
  private pending = new Map<string, UsageIncrement>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private readonly modelLabels = new Set<string>();

  constructor(
    private readonly repository: UsageRepository,
    private readonly metrics: Metrics,
    flushMs: number,
    private readonly onFlushError: (error: unknown) => void,
    /** A row the database refused (not for being unreachable): dropped, counted, logged. */
    private readonly onRowRefused: (increment: UsageIncrement, error: unknown) => void = () => {},
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(accountId: string, contributions: ProviderUsage[], now = new Date()): void {
    const day = utcDay(now);
    // The key is the request's (src/usage/request-usage.ts); '' outside a request.
    const context = requestUsage.getStore();
    const keyId = context?.keyId ?? '';
    const endpoint = context?.endpoint ?? 'refine';
    for (const { provider, model, outcome, tally } of contributions) {
      context?.onTokens?.(tally.inputTokens + tally.outputTokens);
      this.add({ accountId, keyId, day, provider, model, endpoint }, {
        refines: outcome === 'answered' || outcome === 'cache_hit' ? 1 : 0,
        failures: outcome === 'failed' ? 1 : 0,
        cacheHits: outcome === 'cache_hit' ? 1 : 0,
        providerCalls: tally.providerCalls,
        inputTokens: tally.inputTokens,
        outputTokens: tally.outputTokens,
      });
      if (tally.inputTokens > 0 || tally.outputTokens > 0) {
        const labels = { provider, model: this.modelLabel(provider, model) };
        this.metrics.tokens.inc({ ...labels, direction: 'input' }, tally.inputTokens);
        this.metrics.tokens.inc({ ...labels, direction: 'output' }, tally.outputTokens);
      }
    }
  }

  /** Writes what has been counted so far; resolves once it is in the database (or failed and was kept). */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.write());
    // One flush at a time, in order; a failure of one never stops the next.
    this.flushing = next.catch(() => {});
    return next;
  }

  /** Stops the interval and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private add(key: Omit<UsageIncrement, keyof UsageCounts>, counts: UsageCounts): void {
    const id = `${key.accountId}\u0000${key.keyId}\u0000${key.day}\u0000${key.provider}\u0000${key.model}\u0000${key.endpoint}`;
    const entry = this.pending.get(id);
    if (!entry) {
      this.pending.set(id, { ...key, ...counts });
      return;
    }
    entry.refines += counts.refines;
    entry.failures += counts.failures;
    entry.cacheHits += counts.cacheHits;
    entry.providerCalls += counts.providerCalls;
    entry.inputTokens += counts.inputTokens;
    entry.outputTokens += counts.outputTokens;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    // Sorted, so instances flushing the same rows lock them in the same order (no deadlock).
    const increments = [...batch.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, increment]) => increment);
    try {
      await this.repository.add(increments);
    } catch (error) {
      this.onFlushError(error);
      // One row the database can never store must not hold back every account's counts:
      // the rows are then tried one by one, and only those it refuses are dropped.
      if (isRefusedValue(error)) await this.writeOneByOne(increments);
      else this.keep(increments);
    }
  }

  private async writeOneByOne(increments: UsageIncrement[]): Promise<void> {
    for (const increment of increments) {
      try {
        await this.repository.add([increment]);
      } catch (error) {
        if (isRefusedValue(error)) this.onRowRefused(increment, error);
        else this.keep([increment]);
      }
    }
  }

  private keep(increments: UsageIncrement[]): void {
    for (const { accountId, keyId, day, provider, model, endpoint, ...counts } of increments) this.add({ accountId, keyId, day, provider, model, endpoint }, counts);
  }

  private modelLabel(provider: string, model: string): string {
    const pair = `${provider}/${model}`;
    if (this.modelLabels.has(pair)) return model;
    if (this.modelLabels.size >= MAX_MODEL_LABELS) return 'other';
    this.modelLabels.add(pair);
    return model;
  }
}
