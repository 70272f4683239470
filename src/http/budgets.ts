/**
 * Per-key budgets on the routes that declare `config: { budgeted }` (POST /v1/refine):
 * `refinesPerMinute` and `tokensPerDay`, the key's own and those of the keys it was created
 * under (docs/keys-and-scopes.md, "Budgets"). Admission happens before the handler, after an
 * idempotent replay (which spends nothing) had its chance; the reservation is settled when the
 * answer is sent, or the moment the request ends however it ends (a stream cut by its client).
 * The refine pipeline knows nothing of keys: its usage reaches the key through
 * src/usage/request-usage.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { randomUUID } from 'node:crypto';
import { rateLimited } from '../errors.js';
import type { LimitingKey, Principal } from '../accounts/authenticator.js';
import type { BudgetLine, BudgetStore } from '../limits/key-budget.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Metrics } from '../metrics.js';
import type { AuditEntry, ChangeAuthor } from '../storage/change-log.js';
import { requestUsage } from '../usage/request-usage.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Counts against the key's refinesPerMinute and tokensPerDay; says what the request may spend, estimated from it. */
    budgeted?: (request: FastifyRequest) => number;
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
    private readonly lines: readonly BudgetLine[],
    private readonly day: string,
    /** Undefined for a refine that reserved nothing (it calls no model). */
    private readonly reservationId: string | undefined,
    /** The least any of the key's budgets had left when the refine was admitted. */
    readonly remainingAtAdmission: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  add(tokens: number): void {
    if (tokens <= 0) return;
    // Counted after the reservation was settled (a stream's client left early): added on its own.
    if (this.settled) void this.store.settle(this.lines, this.day, undefined, tokens, Date.now()).catch(this.onError);
    else this.tokens += tokens;
  }

  /** Once; what the key's budgets have left after this refine (the least of them). */
  async settle(): Promise<number | undefined> {
    if (this.settled) return undefined;
    this.settled = true;
    return this.store.settle(this.lines, this.day, this.reservationId, this.tokens, Date.now());
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

/** Whose budgets a refine spends: the key, the keys above it, and the request that started it (for budget.exceeded). */
export interface BudgetHolder {
  accountId: string;
  keyId: string;
  limits: Principal['limits'];
  limitedBy: Principal['limitedBy'];
  requestId: string;
}

/**
 * Admits a refine made outside a budgeted route (an evaluation's sample, a judged check) that may
 * spend about `estimate` tokens: undefined when no budget applies to the key.
 */
export type KeyBudgets = (who: BudgetHolder, estimate: number) => Promise<BudgetMeter | undefined>;

/** The key first, then the keys it was created under: a limit of any of them bounds the refine. */
const budgetKeys = ({ keyId, limits, limitedBy }: BudgetHolder): LimitingKey[] => [{ keyId, limits }, ...limitedBy];

/** "for this key", or the key above it that set the limit. */
const whose = (who: BudgetHolder, keyId: string) => (keyId === who.keyId ? 'for this key' : `of key "${keyId}", which this key was created under,`);

export function installBudgets(app: FastifyInstance, { store, refines, metrics, record, waitMs = BUDGET_WAIT_MS }: BudgetOptions): KeyBudgets {
  app.decorateRequest('budgetMeter', null);
  const warn = (error: unknown) => app.log.warn({ err: error }, 'token budget could not be settled');

  async function exceeded(who: BudgetHolder, keyId: string, limit: 'tokensPerDay' | 'refinesPerMinute', window: string): Promise<void> {
    const { accountId } = who;
    metrics.rateLimitRejections.inc({ limit: limit === 'tokensPerDay' ? 'tokens_per_day' : 'refines_per_minute' });
    if (!(await store.firstExceeded(keyId, `${limit}:${window}`))) return;
    void record({ accountId, keyId: who.keyId, requestId: who.requestId, at: new Date().toISOString() }, { action: 'budget.exceeded', keyId, detail: limit }).catch(
      (error: unknown) => app.log.warn({ err: error, keyId }, 'budget.exceeded could not be recorded'),
    );
  }

  async function countRefine(who: BudgetHolder): Promise<void> {
    for (const { keyId, limits } of budgetKeys(who)) {
      if (limits.refinesPerMinute === null) continue;
      const decision = await refines.hit(`refines:${keyId}`, limits.refinesPerMinute);
      if (decision.allowed) continue;
      await exceeded(who, keyId, 'refinesPerMinute', String(Math.floor(Date.now() / 60_000)));
      throw rateLimited(
        `refinesPerMinute limit of ${limits.refinesPerMinute} refines per minute reached ${whose(who, keyId)}; retry in ${decision.resetSeconds} s`,
        decision.resetSeconds,
      );
    }
  }

  const admitKey: KeyBudgets = async (who, estimate) => {
    await countRefine(who);
    const lines = budgetKeys(who).flatMap(({ keyId, limits }) => (limits.tokensPerDay === null ? [] : [{ keyId, limit: limits.tokensPerDay }]));
    if (lines.length === 0) return undefined;
    const meter = (day: string, reservationId: string | undefined, remaining: number) => new BudgetMeter(store, lines, day, reservationId, remaining, warn);
    // Nothing to reserve, so nothing to wait for or refuse: what it spends (nothing) is still settled.
    if (estimate <= 0) {
      const day = utcDay(Date.now());
      return meter(day, undefined, await store.remaining(lines, day));
    }
    const reservationId = randomUUID();
    const deadline = Date.now() + waitMs;
    for (;;) {
      const now = Date.now();
      const day = utcDay(now);
      const admission = await store.admit(lines, day, reservationId, estimate, now);
      if (admission.admitted) return meter(day, reservationId, admission.remaining);
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
      await exceeded(who, keyId, 'tokensPerDay', day);
      const renews = secondsToUtcMidnight(now);
      throw rateLimited(
        admission.reason === 'spent'
          ? `tokensPerDay budget of ${limit} tokens ${whose(who, keyId)} is spent for today (UTC; ${admission.used} used); it renews in ${renews} s`
          : `tokensPerDay budget of ${limit} tokens ${whose(who, keyId)} has ${left} tokens left for today (UTC), and this refine may spend about ${admission.size}; it renews in ${renews} s`,
        renews,
        { [BUDGET_HEADER]: String(left) },
      );
    }
  };

  const settleNow = (request: FastifyRequest) => void request.budgetMeter?.settle().catch(warn);

  const admit = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const estimate = request.routeOptions.config.budgeted!(request);
    request.budgetMeter = (await admitKey({ ...request.principal, requestId: request.id }, estimate)) ?? null;
    if (!request.budgetMeter) return;
    // However the request ends (answered, failed, a stream cut by its client), its reservation goes with it.
    if (reply.raw.writableFinished || request.raw.socket.destroyed) settleNow(request);
    else reply.raw.once('close', () => settleNow(request));
  };

  // The handler runs inside the request's usage context, so its usage is counted for its key (and its budgets).
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
      reply.header(BUDGET_HEADER, String(Math.max(0, meter.remainingAtAdmission)));
      return payload;
    }
    const remaining = await meter.settle().catch((error: unknown) => {
      warn(error);
      return undefined;
    });
    if (remaining !== undefined) reply.header(BUDGET_HEADER, String(Math.max(0, remaining)));
    return payload;
  };

  // Only the routes that spend tokens pay for these hooks. They run after the route's own
  // preHandlers (an idempotent replay answers before anything is counted) and before its onSend.
  app.addHook('onRoute', (route) => {
    if (!route.config?.budgeted) return;
    route.preHandler = [...asList(route.preHandler), admit, withinUsageContext];
    route.onSend = [reportRemaining, ...asList(route.onSend)];
  });
  return admitKey;
}
