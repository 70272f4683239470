/**
 * Metered routes: those that declare `config: { budgeted }` (POST /v1/refine) are admitted
 * against the key's budgets (src/usage/metering.ts) before the handler, after an idempotent
 * replay (which spends nothing) had its chance. The handler runs inside the key's usage
 * context; the reservation is settled when the answer is sent, or the moment the request ends
 * however it ends (a stream cut by its client). What a refine spent reaches the key without
 * the refine pipeline knowing keys.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { BUDGET_HEADER, type Metering, type MeteredWork } from '../usage/metering.js';
import type { UsageEndpoint } from '../usage/request-usage.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Counts against the key's refinesPerMinute and tokensPerDay; says what the request may spend, estimated from it. */
    budgeted?: (request: FastifyRequest) => number;
    /** What the usage rows of a budgeted route count it as; `refine` when absent. */
    usageEndpoint?: UsageEndpoint;
  }
  interface FastifyRequest {
    metered: MeteredWork | null;
  }
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

export function installBudgets(app: FastifyInstance, metering: Metering): void {
  app.decorateRequest('metered', null);

  const admit = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const metered = await metering.admit({ ...request.principal, requestId: request.id }, request.routeOptions.config.budgeted!(request));
    request.metered = metered;
    // However the request ends (answered, failed, a stream cut by its client), its reservation goes with it.
    if (reply.raw.writableFinished || request.raw.socket.destroyed) void metered.settle();
    else reply.raw.once('close', () => void metered.settle());
  };

  // The handler runs inside the key's usage context, so its usage is counted for its key (and its budgets),
  // and its answer in the persona's quality under its request id.
  const withinUsageContext: preHandlerHookHandler = (request, _reply, done) => {
    request.metered!.within(done, request.routeOptions.config.usageEndpoint, request.id);
  };

  const reportRemaining: onSendHookHandler = async (request, reply, payload) => {
    const metered = request.metered;
    if (metered?.remainingAtAdmission === undefined) return payload;
    const streamed = typeof (payload as { pipe?: unknown } | null)?.pipe === 'function';
    // A stream's cost is known when it ends: its answer says what was left when it started.
    const remaining = streamed ? metered.remainingAtAdmission : await metered.settle();
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
}
