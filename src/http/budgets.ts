/**
 * Per-key budgets on the routes marked `config: { budgeted: true }` (POST /v1/refine):
 * `refinesPerMinute` and `tokensPerDay` (docs/keys-and-scopes.md, "Budgets"). Admission
 * happens before the handler; what the refine spent is settled when its answer is
 * sent (a stream: when it ends). The refine pipeline knows nothing of keys: its
 * usage reaches the key through src/usage/request-usage.ts.
 */
import type { FastifyInstance, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { randomUUID } from 'node:crypto';
import { rateLimited } from '../errors.js';
import type { Principal } from '../accounts/authenticator.js';
import type { BudgetStore } from '../limits/key-budget.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Metrics } from '../metrics.js';
import type { AuditEntry, ChangeAuthor } from '../storage/change-log.js';
import { requestUsage } from '../usage/request-usage.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Counts against the key's refinesPerMinute and tokensPerDay. */
    budgeted?: boolean;
  }
  interface FastifyRequest {
    budgetMeter: BudgetMeter | null;
  }
}

export const BUDGET_HEADER = 'x-budget-tokens-remaining';
/** How long a refine waits for refines in flight to settle before a 429 (docs/keys-and-scopes.md, "Budgets"). */
export const BUDGET_WAIT_MS = 10_000;

const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);
const secondsToUtcMidnight = (now: number) => Math.max(1, Math.ceil((86_400_000 - (now % 86_400_000)) / 1000));

export class BudgetMeter {
  private tokens = 0;
  settled = false;

  constructor(
    private readonly store: BudgetStore,
    private readonly keyId: string,
    readonly limit: number,
    private readonly day: string,
    private readonly reservationId: string,
    readonly usedAtAdmission: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  add(tokens: number): void {
    if (tokens <= 0) return;
    // Counted after the answer settled (a stream's client left early): added on its own.
    if (this.settled) void this.store.settle(this.keyId, this.day, undefined, tokens, Date.now()).catch(this.onError);
    else this.tokens += tokens;
  }

  /** Once; the day's total after this refine. */
  async settle(): Promise<number | undefined> {
    if (this.settled) return undefined;
    this.settled = true;
    return this.store.settle(this.keyId, this.day, this.reservationId, this.tokens, Date.now());
  }
}

export interface BudgetOptions {
  store: BudgetStore;
  refines: RateLimiter;
  metrics: Metrics;
  record: (author: ChangeAuthor, entry: AuditEntry) => Promise<void>;
  waitMs?: number;
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/** Whose budgets a refine spends: the key, and the request that started it (for budget.exceeded). */
export interface BudgetHolder {
  accountId: string;
  keyId: string;
  limits: Principal['limits'];
  requestId: string;
}

/** Admits a refine made outside a budgeted route (an evaluation's samples): undefined when the key has no token budget. */
export type KeyBudgets = (who: BudgetHolder) => Promise<BudgetMeter | undefined>;

export function installBudgets(app: FastifyInstance, { store, refines, metrics, record, waitMs = BUDGET_WAIT_MS }: BudgetOptions): KeyBudgets {
  app.decorateRequest('budgetMeter', null);
  const warn = (error: unknown) => app.log.warn({ err: error }, 'token budget could not be settled');

  async function exceeded(who: BudgetHolder, limit: 'tokensPerDay' | 'refinesPerMinute', window: string): Promise<void> {
    const { accountId, keyId } = who;
    metrics.rateLimitRejections.inc({ limit: limit === 'tokensPerDay' ? 'tokens_per_day' : 'refines_per_minute' });
    if (!(await store.firstExceeded(keyId, `${limit}:${window}`))) return;
    void record({ accountId, keyId, requestId: who.requestId, at: new Date().toISOString() }, { action: 'budget.exceeded', keyId, detail: limit }).catch(
      (error: unknown) => app.log.warn({ err: error, keyId }, 'budget.exceeded could not be recorded'),
    );
  }

  const admitKey = async (who: BudgetHolder): Promise<BudgetMeter | undefined> => {
    const { keyId, limits } = who;
    if (limits.refinesPerMinute !== null) {
      const decision = await refines.hit(`refines:${keyId}`, limits.refinesPerMinute);
      if (!decision.allowed) {
        await exceeded(who, 'refinesPerMinute', String(Math.floor(Date.now() / 60_000)));
        throw rateLimited(
          `refinesPerMinute limit of ${limits.refinesPerMinute} refines per minute reached for this key; retry in ${decision.resetSeconds} s`,
          decision.resetSeconds,
        );
      }
    }
    const limit = limits.tokensPerDay;
    if (limit === null) return undefined;
    const reservationId = randomUUID();
    const deadline = Date.now() + waitMs;
    for (;;) {
      const now = Date.now();
      const day = utcDay(now);
      const admission = await store.admit(keyId, day, limit, reservationId, now);
      if (admission.admitted) return new BudgetMeter(store, keyId, limit, day, reservationId, admission.used, warn);
      if (!admission.busy) {
        await exceeded(who, 'tokensPerDay', day);
        const renews = secondsToUtcMidnight(now);
        throw rateLimited(
          `tokensPerDay budget of ${limit} tokens for this key is spent for today (UTC; ${admission.used} used); it renews in ${renews} s`,
          renews,
          { [BUDGET_HEADER]: '0' },
        );
      }
      if (now >= deadline) {
        throw rateLimited(
          `tokensPerDay budget of ${limit} tokens for this key: the refines in flight may spend the ${limit - admission.used} tokens left; retry in 1 s`,
          1,
          { [BUDGET_HEADER]: String(Math.max(0, limit - admission.used)) },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const admit = async (request: FastifyRequest): Promise<void> => {
    request.budgetMeter = (await admitKey({ ...request.principal, requestId: request.id })) ?? null;
  };

  // The handler runs inside the request's usage context, so its usage is counted for its key (and its budget).
  const withinUsageContext: preHandlerHookHandler = (request, _reply, done) => {
    const meter = request.budgetMeter;
    requestUsage.run({ keyId: request.principal.keyId, onTokens: meter ? (tokens) => meter.add(tokens) : undefined }, done);
  };

  const reportRemaining: onSendHookHandler = async (request, reply, payload) => {
    const meter = request.budgetMeter;
    if (!meter) return payload;
    const streamed = typeof (payload as { pipe?: unknown } | null)?.pipe === 'function';
    if (streamed) {
      // A stream's cost is known when it ends: its answer says what was left when it started.
      reply.header(BUDGET_HEADER, String(Math.max(0, meter.limit - meter.usedAtAdmission)));
      return payload;
    }
    const used = await meter.settle().catch((error: unknown) => {
      warn(error);
      return undefined;
    });
    if (used !== undefined) reply.header(BUDGET_HEADER, String(Math.max(0, meter.limit - used)));
    return payload;
  };
  const settleLate = async (request: FastifyRequest) => {
    await request.budgetMeter?.settle().catch(warn);
  };

  // Only the routes that spend tokens (`config.budgeted`) pay for these hooks; they run before the route's own.
  app.addHook('onRoute', (route) => {
    if (!route.config?.budgeted) return;
    route.preHandler = [admit, withinUsageContext, ...asList(route.preHandler)];
    route.onSend = [reportRemaining, ...asList(route.onSend)];
    route.onResponse = [settleLate, ...asList(route.onResponse)];
    route.onRequestAbort = [settleLate, ...asList(route.onRequestAbort)];
  });
  return admitKey;
}
