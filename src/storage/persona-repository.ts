/** Every persona query. Rows in, rows out; the persona service gives them meaning. */
import type { Kysely, Selectable } from 'kysely';
import { precompiled } from './precompiled.js';
import type { Database, PersonasTable } from './schema.js';

export type PersonaRow = Selectable<PersonasTable>;

export interface PersonaChanges {
  name?: string;
  attributes?: string;
}

export type UpdateOutcome = { status: 'updated'; row: PersonaRow } | { status: 'not_found' } | { status: 'version_mismatch' };
export type DeleteOutcome = { status: 'deleted' } | { status: 'not_found' } | { status: 'version_mismatch' };

export class PersonaRepository {
  private readonly selectOne;
  private readonly selectAll;

  constructor(private readonly db: Kysely<Database>) {
    const byAccount = db.selectFrom('personas').selectAll().where('account_id', '=', '');
    this.selectOne = precompiled(byAccount.where('id', '=', ''), 2);
    this.selectAll = precompiled(byAccount.orderBy('id', 'asc'), 1);
  }

  async insert(row: PersonaRow): Promise<PersonaRow> {
    await this.db.insertInto('personas').values(row).execute();
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
   */
  async update(
    accountId: string,
    id: string,
    changes: PersonaChanges,
    updatedAt: string,
    expectedVersions?: number[],
  ): Promise<UpdateOutcome> {
    let query = this.db
      .updateTable('personas')
      .set((eb) => ({ ...changes, updated_at: updatedAt, version: eb('version', '+', 1) }))
      .where('account_id', '=', accountId)
      .where('id', '=', id);
    if (expectedVersions !== undefined) query = query.where('version', 'in', expectedVersions);
    const row = await query.returningAll().executeTakeFirst();
    if (row) return { status: 'updated', row };
    return (await this.findForAccount(accountId, id)) ? { status: 'version_mismatch' } : { status: 'not_found' };
  }

  async delete(accountId: string, id: string, expectedVersions?: number[]): Promise<DeleteOutcome> {
    let query = this.db.deleteFrom('personas').where('account_id', '=', accountId).where('id', '=', id);
    if (expectedVersions !== undefined) query = query.where('version', 'in', expectedVersions);
    const result = await query.executeTakeFirst();
    if (result.numDeletedRows > 0n) return { status: 'deleted' };
    return (await this.findForAccount(accountId, id)) ? { status: 'version_mismatch' } : { status: 'not_found' };
  }
}
