/**
 * Evaluation runs and their results (eval_runs, eval_results). Every query is
 * scoped by account, or by an owner that only the instance running a run knows.
 * A result, the run's progress and its summary are written in one transaction
 * that holds only while the run is still running, so a cancelled or deleted
 * run gains nothing afterwards.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, EvalResultsTable, EvalRunsTable } from './schema.js';
import { recordWebhookEvent } from './webhook-outbox.js';

export type EvalRunRow = Selectable<EvalRunsTable>;
export type EvalResultRow = Selectable<EvalResultsTable>;

const ACTIVE = ['queued', 'running'] as const;

export class EvalRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts the run unless its account already has `maxActive` runs in flight; false then. The account row is locked first. */
  async insertWithinCap(row: EvalRunRow, maxActive: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set((eb) => ({ name: eb.ref('name') })).where('id', '=', row.account_id).execute();
      const { active } = await trx
        .selectFrom('eval_runs')
        .select((eb) => eb.fn.countAll<string | number>().as('active'))
        .where('account_id', '=', row.account_id)
        .where('status', 'in', ACTIVE)
        .executeTakeFirstOrThrow();
      if (Number(active) >= maxActive) return false;
      await trx.insertInto('eval_runs').values(row).execute();
      return true;
    });
  }

  find(accountId: string, personaId: string, id: string): Promise<EvalRunRow | undefined> {
    return this.db.selectFrom('eval_runs').selectAll().where('account_id', '=', accountId).where('persona_id', '=', personaId).where('id', '=', id).executeTakeFirst();
  }

  /** Newest first; `beforeId` is the keyset cursor. */
  list(accountId: string, personaId: string, page: { beforeId?: string; limit: number }): Promise<EvalRunRow[]> {
    let query = this.db.selectFrom('eval_runs').selectAll().where('account_id', '=', accountId).where('persona_id', '=', personaId);
    if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** The completed runs of one version, newest first: what a label gate looks at. */
  completedOf(personaId: string, version: number): Promise<EvalRunRow[]> {
    return this.db
      .selectFrom('eval_runs')
      .selectAll()
      .where('persona_id', '=', personaId)
      .where('version', '=', version)
      .where('status', '=', 'completed')
      .orderBy('id', 'desc')
      .execute();
  }

  /** In the order they finished; `afterSeq` is what a reader has seen already. */
  results(evalId: string, afterSeq = 0): Promise<EvalResultRow[]> {
    return this.db.selectFrom('eval_results').selectAll().where('eval_id', '=', evalId).where('seq', '>', afterSeq).orderBy('seq').execute();
  }

  async markRunning(id: string, owner: string, at: string): Promise<boolean> {
    const updated = await this.db
      .updateTable('eval_runs')
      .set({ status: 'running', heartbeat_at: at })
      .where('id', '=', id)
      .where('owner', '=', owner)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  /** False when the run is no longer this owner's running run (cancelled, interrupted, deleted): nothing is written. */
  async addResult(id: string, owner: string, result: EvalResultRow, summary: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('eval_runs')
        .set({ done: result.seq, summary })
        .where('id', '=', id)
        .where('owner', '=', owner)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await trx.insertInto('eval_results').values(result).execute();
      return true;
    });
  }

  /**
   * Ends a run still in flight; false when it had ended already (or is not this owner's, when one is given).
   * A run that completed or failed tells the account's webhooks in the same transaction.
   */
  async finish(id: string, end: { status: EvalRunRow['status']; error: string | null; at: string; owner?: string; accountId?: string }): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      let query = trx
        .updateTable('eval_runs')
        .set({ status: end.status, error: end.error, finished_at: end.at })
        .where('id', '=', id)
        .where('status', 'in', ACTIVE);
      if (end.owner !== undefined) query = query.where('owner', '=', end.owner);
      if (end.accountId !== undefined) query = query.where('account_id', '=', end.accountId);
      const ended = await query.returning(['id', 'account_id', 'persona_id', 'version', 'summary', 'status', 'error']).executeTakeFirst();
      if (ended === undefined) return false;
      await recordEvalEnd(trx, ended, end.at);
      return true;
    });
  }

  /** This owner's runs still in flight, their heartbeat renewed; a run missing from the answer was ended elsewhere. */
  async heartbeat(owner: string, at: string): Promise<string[]> {
    const rows = await this.db.updateTable('eval_runs').set({ heartbeat_at: at }).where('owner', '=', owner).where('status', 'in', ACTIVE).returning('id').execute();
    return rows.map((row) => row.id);
  }

  /** This owner's runs in flight with the key that started each: whether that key may still act is the runner's to judge. */
  startingKeys(owner: string): Promise<{ evalId: string; revokedAt: string | null; expiresAt: string | null }[]> {
    return this.db
      .selectFrom('eval_runs')
      .innerJoin('api_keys', 'api_keys.id', 'eval_runs.created_by')
      .select(['eval_runs.id as evalId', 'api_keys.revoked_at as revokedAt', 'api_keys.expires_at as expiresAt'])
      .where('eval_runs.owner', '=', owner)
      .where('eval_runs.status', 'in', ACTIVE)
      .execute();
  }

  /** Runs whose instance stopped saying it runs them: ended as interrupted, what finished kept (each an eval.failed event). */
  async interruptStale(staleBefore: string, at: string, error: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const ended = await trx
        .updateTable('eval_runs')
        .set({ status: 'interrupted', error, finished_at: at })
        .where('status', 'in', ACTIVE)
        .where('heartbeat_at', '<', staleBefore)
        .returning(['id', 'account_id', 'persona_id', 'version', 'summary', 'status', 'error'])
        .execute();
      for (const run of ended) await recordEvalEnd(trx, run, at);
      return ended.length;
    });
  }
}

type EndedRun = Pick<EvalRunRow, 'id' | 'account_id' | 'persona_id' | 'version' | 'summary' | 'status' | 'error'>;

/** eval.completed, or eval.failed for a run that failed or was interrupted (a cancelled run was someone's choice: no event). */
async function recordEvalEnd(trx: Transaction<Database>, run: EndedRun, at: string): Promise<void> {
  if (run.status !== 'completed' && run.status !== 'failed' && run.status !== 'interrupted') return;
  const base = { personaId: run.persona_id, evalId: run.id, version: run.version, summary: parseSummary(run.summary) };
  await recordWebhookEvent(trx, {
    accountId: run.account_id,
    at,
    event:
      run.status === 'completed'
        ? { type: 'eval.completed', data: base }
        : { type: 'eval.failed', data: { ...base, status: run.status, error: run.error } },
  });
}

function parseSummary(stored: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(stored);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
