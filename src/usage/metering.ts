/**
 * Metered work, once for every operation that spends a key's budgets (a refine request, a
 * judged check, an evaluation's sample, and whatever comes next): admit it against the
 * key's `refinesPerMinute` and `tokensPerDay` and those of the keys it was created under,
 * run it inside the key's usage context so what it spends reaches those budgets, and settle
 * the reservation however it ends (docs/keys-and-scopes.md, "Budgets"). The HTTP layer only
 * decides when: src/http/budgets.ts for routes, the check and evaluation routes through `run`.
 */
import { randomUUID } from 'node:crypto';
import type { KeyLimits, LimitingKey } from '../accounts/authenticator.js';
import { rateLimited } from '../errors.js';
import type { BudgetLine, BudgetStore, Settlement } from '../limits/key-budget.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Metrics } from '../metrics.js';
import type { AuditEntry, ChangeAuthor } from '../storage/change-log.js';
import { requestUsage, type UsageEndpoint } from './request-usage.js';

export const BUDGET_HEADER = 'x-budget-tokens-remaining';
/** How long metered work waits for work in flight to settle before a 429 (docs/keys-and-scopes.md, "Budgets"). */
export const BUDGET_WAIT_MS = 10_000;

const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);
const secondsToUtcMidnight = (now: number) => Math.max(1, Math.ceil((86_400_000 - (now % 86_400_000)) / 1000));

/** Whose budgets work spends: the key, the keys above it, and the request that started it (for budget.exceeded). */
export interface MeteredKey {
  accountId: string;
  keyId: string;
  limits: KeyLimits;
  limitedBy: readonly LimitingKey[];
  requestId: string;
}

/** Admitted work: what it spends is counted for its key while it runs `within`; settled once. */
export class MeteredWork {
  private tokens = 0;
  private settled = false;

  constructor(
    private readonly keyId: string,
    private readonly budget:
      | {
          store: BudgetStore;
          lines: readonly BudgetLine[];
          day: string;
          reservationId: string | undefined;
          remaining: number;
          /** Told of every settlement, to notice the thresholds it crosses. */
          settled: (settlement: Settlement, tokens: number) => void;
        }
      | undefined,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** What the key's token budgets had left when the work was admitted (the least of them); undefined without one. */
  get remainingAtAdmission(): number | undefined {
    return this.budget?.remaining;
  }

  /**
   * Runs `work` inside the key's usage context: every provider call it makes is counted for the key
   * and its budgets; with `requestId`, the work answers that live request (src/usage/request-usage.ts).
   */
  within<T>(work: () => T, endpoint?: UsageEndpoint, requestId?: string): T {
    const onTokens = this.budget ? (tokens: number) => this.add(tokens) : undefined;
    return requestUsage.run({ keyId: this.keyId, ...(endpoint ? { endpoint } : {}), ...(requestId === undefined ? {} : { requestId }), onTokens }, work);
  }

  private add(tokens: number): void {
    if (tokens <= 0 || !this.budget) return;
    const { store, lines, day } = this.budget;
    // Counted after the reservation was settled (a stream's client left early): added on its own.
    if (this.settled) void store.settle(lines, day, undefined, tokens, Date.now()).then((settlement) => this.budget?.settled(settlement, tokens), this.onError);
    else this.tokens += tokens;
  }

  /** Once (later calls answer undefined): what the key's token budgets have left after the work, the least of them. */
  async settle(): Promise<number | undefined> {
    if (this.settled || !this.budget) return undefined;
    this.settled = true;
    const { store, lines, day, reservationId, settled } = this.budget;
    try {
      const settlement = await store.settle(lines, day, reservationId, this.tokens, Date.now());
      settled(settlement, this.tokens);
      return settlement.remaining;
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }
}

export interface MeteringOptions {
  store: BudgetStore;
  refines: RateLimiter;
  metrics: Metrics;
  record: (author: ChangeAuthor, entry: AuditEntry) => Promise<void>;
  /** A key's spending crossed 80 % or 100 % of a tokensPerDay budget (each crossing is seen by one settlement only). */
  thresholdCrossed: (accountId: string, crossing: BudgetCrossing) => void;
  warn: (detail: Record<string, unknown>, message: string) => void;
  waitMs?: number;
}

/** Where a budget's owners are told of its spending (a budget.threshold webhook event). */
export const BUDGET_THRESHOLDS = [80, 100] as const;

export interface BudgetCrossing {
  keyId: string;
  limit: number;
  percent: (typeof BUDGET_THRESHOLDS)[number];
  used: number;
  day: string;
}

/** The thresholds a settlement of `tokens` moved each line across: the spending before it was below, after it is not. */
export function crossings(lines: readonly BudgetLine[], day: string, { used }: Settlement, tokens: number): BudgetCrossing[] {
  return lines.flatMap(({ keyId, limit }, index) => {
    const after = used[index] ?? 0;
    const before = after - tokens;
    return BUDGET_THRESHOLDS.filter((percent) => {
      const threshold = Math.ceil((limit * percent) / 100);
      return before < threshold && after >= threshold;
    }).map((percent) => ({ keyId, limit, percent, used: after, day }));
  });
}

/** The key first, then the keys it was created under: a limit of any of them bounds the work. */
const budgetKeys = ({ keyId, limits, limitedBy }: MeteredKey): LimitingKey[] => [{ keyId, limits }, ...limitedBy];

/** "for this key", or the key above it that set the limit. */
const whose = (who: MeteredKey, keyId: string) => (keyId === who.keyId ? 'for this key' : `of key "${keyId}", which this key was created under,`);

export class Metering {
  private readonly waitMs: number;

  constructor(private readonly options: MeteringOptions) {
    this.waitMs = options.waitMs ?? BUDGET_WAIT_MS;
  }

  /** Work whose usage is the key's but that spends no budget (a check without a judge). */
  unmetered(keyId: string): MeteredWork {
    return new MeteredWork(keyId, undefined, this.warnSettle);
  }

  /**
   * Admits work that may spend about `estimate` tokens, counting it as one of the key's refines,
   * or throws the 429 naming the limit (waiting up to BUDGET_WAIT_MS for work in flight first).
   */
  async admit(who: MeteredKey, estimate: number): Promise<MeteredWork> {
    await this.countRefine(who);
    const lines = budgetKeys(who).flatMap(({ keyId, limits }) => (limits.tokensPerDay === null ? [] : [{ keyId, limit: limits.tokensPerDay }]));
    if (lines.length === 0) return new MeteredWork(who.keyId, undefined, this.warnSettle);
    const { store } = this.options;
    const settled = (day: string) => (settlement: Settlement, tokens: number) => {
      for (const crossing of crossings(lines, day, settlement, tokens)) this.options.thresholdCrossed(who.accountId, crossing);
    };
    const admitted = (day: string, reservationId: string | undefined, remaining: number) =>
      new MeteredWork(who.keyId, { store, lines, day, reservationId, remaining, settled: settled(day) }, this.warnSettle);
    // Nothing to reserve, so nothing to wait for or refuse: what it spends (nothing) is still settled.
    if (estimate <= 0) {
      const day = utcDay(Date.now());
      return admitted(day, undefined, await store.remaining(lines, day));
    }
    const reservationId = randomUUID();
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const now = Date.now();
      const day = utcDay(now);
      const admission = await store.admit(lines, day, reservationId, estimate, now);
      if (admission.admitted) return admitted(day, reservationId, admission.remaining);
      const { keyId, limit } = lines[admission.line]!;
      const left = Math.max(0, limit - admission.used);
      if (admission.reason === 'busy' && now < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      if (admission.reason === 'busy') {
        throw rateLimited(
          `tokensPerDay budget of ${limit} tokens ${whose(who, keyId)}: the refines in flight may spend the ${left} tokens left; retry in 1 s`,
          1,
          { [BUDGET_HEADER]: String(left) },
        );
      }
      await this.exceeded(who, keyId, 'tokensPerDay', day);
      const renews = secondsToUtcMidnight(now);
      throw rateLimited(
        admission.reason === 'spent'
          ? `tokensPerDay budget of ${limit} tokens ${whose(who, keyId)} is spent for today (UTC; ${admission.used} used); it renews in ${renews} s`
          : `tokensPerDay budget of ${limit} tokens ${whose(who, keyId)} has ${left} tokens left for today (UTC), and this refine may spend about ${admission.size}; it renews in ${renews} s`,
        renews,
        { [BUDGET_HEADER]: String(left) },
      );
    }
  }

  /**
   * Admits, runs and settles work that ends when `work` does; `remaining` as `settle` answers it.
   * `live`: the work answers `who.requestId` itself (a judged check), not a sample of an evaluation it started.
   */
  async run<T>(who: MeteredKey, estimate: number, work: () => Promise<T>, live = false): Promise<{ value: T; remaining: number | undefined }> {
    const metered = await this.admit(who, estimate);
    try {
      const value = await metered.within(work, undefined, live ? who.requestId : undefined);
      return { value, remaining: await metered.settle() };
    } finally {
      // Failed or not, the reservation goes with the work.
      await metered.settle();
    }
  }

  private readonly warnSettle = (error: unknown) => this.options.warn({ err: error }, 'token budget could not be settled');

  private async countRefine(who: MeteredKey): Promise<void> {
    for (const { keyId, limits } of budgetKeys(who)) {
      if (limits.refinesPerMinute === null) continue;
      const decision = await this.options.refines.hit(`refines:${keyId}`, limits.refinesPerMinute);
      if (decision.allowed) continue;
      await this.exceeded(who, keyId, 'refinesPerMinute', String(Math.floor(Date.now() / 60_000)));
      throw rateLimited(
        `refinesPerMinute limit of ${limits.refinesPerMinute} refines per minute reached ${whose(who, keyId)}; retry in ${decision.resetSeconds} s`,
        decision.resetSeconds,
      );
    }
  }

  private async exceeded(who: MeteredKey, keyId: string, limit: 'tokensPerDay' | 'refinesPerMinute', window: string): Promise<void> {
    const { metrics, store, record, warn } = this.options;
    metrics.rateLimitRejections.inc({ limit: limit === 'tokensPerDay' ? 'tokens_per_day' : 'refines_per_minute' });
    if (!(await store.firstExceeded(keyId, `${limit}:${window}`))) return;
    void record({ accountId: who.accountId, keyId: who.keyId, requestId: who.requestId, at: new Date().toISOString() }, { action: 'budget.exceeded', keyId, detail: limit }).catch(
      (error: unknown) => warn({ err: error, keyId }, 'budget.exceeded could not be recorded'),
    );
  }
}
