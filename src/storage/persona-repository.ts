/**
 * Every persona query. Rows in, rows out; the persona service gives them
 * meaning. Each write also records its version and audit event (change-log.ts).
 */
import type { Kysely, Selectable } from 'kysely';
import { type ChangeAuthor, lockPersona, recordEvent, recordVersion } from './change-log.js';
import { personaData, recordWebhookEvent } from './webhook-outbox.js';
import { precompiled } from './precompiled.js';
import type { Database, PersonasTable } from './schema.js';

export type PersonaRow = Selectable<PersonasTable>;

export interface PersonaChanges {
  name?: string;
  attributes?: string;
}

export type UpdateOutcome = { status: 'updated'; row: PersonaRow } | { status: 'not_found' } | { status: 'version_mismatch' };
export type DeleteOutcome = { status: 'deleted' } | { status: 'not_found' } | { status: 'version_mismatch' };

/** A label that points at a version, and its stored protection (null: it has no policy). */
export interface SetLabel {
  label: string;
  protected: number | null;
}

export class PersonaRepository {
  private readonly selectOne;
  private readonly selectAll;

  constructor(private readonly db: Kysely<Database>) {
    const byAccount = db.selectFrom('personas').selectAll().where('account_id', '=', '');
    this.selectOne = precompiled(byAccount.where('id', '=', ''), 2);
    this.selectAll = precompiled(byAccount.orderBy('id', 'asc'), 1);
  }

  async insert(row: PersonaRow, author: ChangeAuthor): Promise<PersonaRow> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('personas').values(row).execute();
      await recordVersion(trx, row, author);
      await recordEvent(trx, author, { action: 'persona.created', personaId: row.id, version: row.version });
      await recordWebhookEvent(trx, { accountId: author.accountId, at: author.at, event: { type: 'persona.created', data: personaData(row) } });
    });
    return row;
  }

  async findForAccount(accountId: string, id: string): Promise<PersonaRow | undefined> {
    return (await this.selectOne(this.db, accountId, id)).rows[0];
  }

  /** Oldest first. `afterId` is the keyset cursor; `limit` undefined means all. */
  async listForAccount(accountId: string, page: { afterId?: string; limit?: number } = {}): Promise<PersonaRow[]> {
    if (page.afterId === undefined && page.limit === undefined) return (await this.selectAll(this.db, accountId)).rows;
    let query = this.db.selectFrom('personas').selectAll().where('account_id', '=', accountId);
    if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
    query = query.orderBy('id', 'asc');
    if (page.limit !== undefined) query = query.limit(page.limit);
    return query.execute();
  }

  /**
   * One conditional UPDATE, so concurrent writers with the same expected
   * version cannot both win: the database decides, not a read-then-write.
   * Its row lock also hands out version numbers one by one, without gaps.
   */
  async update(
    author: ChangeAuthor,
    id: string,
    changes: PersonaChanges,
    expectedVersions?: number[],
  ): Promise<UpdateOutcome> {
    const row = await this.db.transaction().execute(async (trx) => {
      let query = trx
        .updateTable('personas')
        .set((eb) => ({ ...changes, updated_at: author.at, version: eb('version', '+', 1) }))
        .where('account_id', '=', author.accountId)
        .where('id', '=', id);
      if (expectedVersions !== undefined) query = query.where('version', 'in', expectedVersions);
      const updated = await query.returningAll().executeTakeFirst();
      if (!updated) return undefined;
      await recordVersion(trx, updated, author);
      await recordEvent(trx, author, { action: 'persona.updated', personaId: id, version: updated.version });
      await recordWebhookEvent(trx, { accountId: author.accountId, at: author.at, event: { type: 'persona.updated', data: personaData(updated) } });
      return updated;
    });
    if (row) return { status: 'updated', row };
    return this.missOutcome(author.accountId, id);
  }

  /**
   * Versions, labels, label policies, evaluation samples and runs, its quality aggregates, answer log,
   * feedback, retention policy and kept reviews go with the persona; its audit events stay.
   * `admit` sees the labels that point at a version, under the persona's row lock (as a label write takes it),
   * and throws to refuse; it is asked before If-Match is compared, as a label's removal asks its gate.
   */
  async delete(author: ChangeAuthor, id: string, admit: (labels: SetLabel[]) => void, expectedVersions?: number[]): Promise<DeleteOutcome> {
    return this.db.transaction().execute(async (trx): Promise<DeleteOutcome> => {
      const current = await lockPersona(trx, author.accountId, id, undefined);
      if (current === undefined) return { status: 'not_found' };
      admit(
        await trx
          .selectFrom('persona_labels')
          .leftJoin('label_policies', (join) =>
            join.onRef('label_policies.persona_id', '=', 'persona_labels.persona_id').onRef('label_policies.label', '=', 'persona_labels.label'),
          )
          .select(['persona_labels.label', 'label_policies.protected'])
          .where('persona_labels.persona_id', '=', id)
          .execute(),
      );
      if (expectedVersions !== undefined && !expectedVersions.includes(current)) return { status: 'version_mismatch' };
      const { name } = await trx.selectFrom('personas').select('name').where('id', '=', id).executeTakeFirstOrThrow();
      await trx.deleteFrom('personas').where('id', '=', id).execute();
      await trx.deleteFrom('persona_labels').where('persona_id', '=', id).execute();
      await trx.deleteFrom('label_policies').where('persona_id', '=', id).execute();
      await trx.deleteFrom('persona_versions').where('persona_id', '=', id).execute();
      await trx.deleteFrom('eval_sample_sets').where('persona_id', '=', id).execute();
      await trx.deleteFrom('eval_results').where('eval_id', 'in', (eb) => eb.selectFrom('eval_runs').select('id').where('persona_id', '=', id)).execute();
      await trx.deleteFrom('eval_runs').where('persona_id', '=', id).execute();
      for (const table of ['quality_daily', 'quality_findings_daily', 'answer_log', 'feedback', 'review_policies', 'reviews'] as const) {
        await trx.deleteFrom(table).where('account_id', '=', author.accountId).where('persona_id', '=', id).execute();
      }
      await recordEvent(trx, author, { action: 'persona.deleted', personaId: id, version: current });
      await recordWebhookEvent(trx, { accountId: author.accountId, at: author.at, event: { type: 'persona.deleted', data: { id, name, version: current } } });
      return { status: 'deleted' };
    });
  }

  /** Why a conditional write touched no row: the persona is gone, or it moved on. */
  async missOutcome(accountId: string, id: string): Promise<{ status: 'not_found' } | { status: 'version_mismatch' }> {
    return (await this.findForAccount(accountId, id)) ? { status: 'version_mismatch' } : { status: 'not_found' };
  }
}
