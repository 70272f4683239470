/**
 * Persona versions and labels: immutable rows, movable pointers. Versions are
 * written by every persona write (change-log.ts); here they are read, restored
 * and labelled. Every query is scoped by account.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import { type ChangeAuthor, inTransaction, lockPersona, Rollback, recordEvent, recordVersion } from './change-log.js';
import { personaData, recordWebhookEvent } from './webhook-outbox.js';
import { EvalRepository, type EvalRunRow } from './eval-repository.js';
import { LabelPolicyRepository, type LabelPolicyRow } from './label-policy-repository.js';
import { precompiled } from './precompiled.js';
import type { Database, PersonasTable, PersonaVersionsTable } from './schema.js';

export type PersonaVersionRow = Selectable<PersonaVersionsTable>;
type PersonaRow = Selectable<PersonasTable>;

/** Why a write under a persona did not happen. */
export type HistoryMiss =
  | { status: 'persona_not_found' }
  | { status: 'version_mismatch' }
  | { status: 'version_not_found' }
  | { status: 'label_not_found' };

export type RestoreOutcome = { status: 'restored'; row: PersonaRow } | HistoryMiss;
export type LabelOutcome = { status: 'done'; version: number } | HistoryMiss;

/** What a label's gate reads: inside the label write's transaction, under the persona's row lock. */
export interface LockedLabelReads {
  policy(): Promise<LabelPolicyRow | undefined>;
  /** The completed evaluation runs of a version, newest first. */
  completedRuns(version: number): Promise<EvalRunRow[]>;
}

/**
 * Admits a label's move or removal, or throws (the transaction is rolled back); answers the
 * evaluation that allowed a gated move. Run after the persona's row lock is taken, as a policy
 * write takes it too: a policy set meanwhile committed before the move and judges it, or waits
 * until the move committed.
 */
export type LabelGate = (reads: LockedLabelReads) => Promise<string | undefined>;

export class PersonaHistoryRepository {
  private readonly selectVersion;
  private readonly selectLabelled;

  constructor(private readonly db: Kysely<Database>) {
    this.selectVersion = precompiled(
      db.selectFrom('persona_versions').selectAll().where('account_id', '=', '').where('persona_id', '=', '').where('version', '=', 0),
      3,
    );
    this.selectLabelled = precompiled(
      db
        .selectFrom('persona_labels')
        .innerJoin('persona_versions', (join) =>
          join.onRef('persona_versions.persona_id', '=', 'persona_labels.persona_id').onRef('persona_versions.version', '=', 'persona_labels.version'),
        )
        .selectAll('persona_versions')
        .where('persona_versions.account_id', '=', '')
        .where('persona_labels.persona_id', '=', '')
        .where('persona_labels.label', '=', ''),
      3,
    );
  }

  async findVersion(accountId: string, personaId: string, version: number): Promise<PersonaVersionRow | undefined> {
    return (await this.selectVersion(this.db, accountId, personaId, version)).rows[0];
  }

  async findLabelled(accountId: string, personaId: string, label: string): Promise<PersonaVersionRow | undefined> {
    return (await this.selectLabelled(this.db, accountId, personaId, label)).rows[0];
  }

  /** Oldest first; `afterVersion` is the keyset cursor, `limit` undefined means all. */
  listVersions(accountId: string, personaId: string, page: { afterVersion?: number; limit?: number }): Promise<PersonaVersionRow[]> {
    let query = this.db.selectFrom('persona_versions').selectAll().where('account_id', '=', accountId).where('persona_id', '=', personaId);
    if (page.afterVersion !== undefined) query = query.where('version', '>', page.afterVersion);
    query = query.orderBy('version', 'asc');
    if (page.limit !== undefined) query = query.limit(page.limit);
    return query.execute();
  }

  /** Label → version, in label order. The caller has checked that the persona is the account's. */
  async labels(personaId: string): Promise<Array<{ label: string; version: number }>> {
    return this.db.selectFrom('persona_labels').select(['label', 'version']).where('persona_id', '=', personaId).orderBy('label').execute();
  }

  /** The old content becomes the newest version, under a new number: history is never rewritten. */
  async restore(author: ChangeAuthor, personaId: string, version: number, expectedVersions?: number[]): Promise<RestoreOutcome> {
    return inTransaction<RestoreOutcome, HistoryMiss>(this.db, async (trx) => {
      await this.lockOrRollback(trx, author.accountId, personaId, expectedVersions);
      const source = await trx
        .selectFrom('persona_versions')
        .select(['name', 'attributes'])
        .where('persona_id', '=', personaId)
        .where('version', '=', version)
        .executeTakeFirst();
      if (!source) throw new Rollback<HistoryMiss>({ status: 'version_not_found' });
      const row = await trx
        .updateTable('personas')
        .set((eb) => ({ name: source.name, attributes: source.attributes, updated_at: author.at, version: eb('version', '+', 1) }))
        .where('id', '=', personaId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordVersion(trx, row, author);
      await recordEvent(trx, author, { action: 'persona.restored', personaId, version: row.version, fromVersion: version });
      await recordWebhookEvent(trx, { accountId: author.accountId, at: author.at, event: { type: 'persona.updated', data: personaData(row) } });
      return { status: 'restored', row };
    });
  }

  async setLabel(author: ChangeAuthor, personaId: string, label: string, version: number, gate: LabelGate, expectedVersions?: number[]): Promise<LabelOutcome> {
    return inTransaction<LabelOutcome, HistoryMiss>(this.db, async (trx) => {
      const evalId = await this.lockAndAdmit(trx, author.accountId, personaId, label, gate, expectedVersions);
      const target = await trx
        .selectFrom('persona_versions')
        .select('version')
        .where('persona_id', '=', personaId)
        .where('version', '=', version)
        .executeTakeFirst();
      if (!target) throw new Rollback<HistoryMiss>({ status: 'version_not_found' });
      const previous = await trx
        .selectFrom('persona_labels')
        .select('version')
        .where('persona_id', '=', personaId)
        .where('label', '=', label)
        .executeTakeFirst();
      const row = { persona_id: personaId, label, version, updated_at: author.at };
      if (previous) await trx.updateTable('persona_labels').set(row).where('persona_id', '=', personaId).where('label', '=', label).execute();
      else await trx.insertInto('persona_labels').values(row).execute();
      const detail = evalId === undefined ? null : `evalId=${evalId}`;
      await recordEvent(trx, author, { action: 'label.set', personaId, label, version, fromVersion: previous?.version ?? null, detail });
      await recordWebhookEvent(trx, {
        accountId: author.accountId,
        at: author.at,
        event: {
          type: 'label.moved',
          data: { personaId, label, fromVersion: previous?.version ?? null, toVersion: version, ...(evalId === undefined ? {} : { evalId }), keyId: author.keyId },
        },
      });
      return { status: 'done', version };
    });
  }

  async removeLabel(author: ChangeAuthor, personaId: string, label: string, gate: LabelGate, expectedVersions?: number[]): Promise<LabelOutcome> {
    return inTransaction<LabelOutcome, HistoryMiss>(this.db, async (trx) => {
      await this.lockAndAdmit(trx, author.accountId, personaId, label, gate, expectedVersions);
      const removed = await trx
        .deleteFrom('persona_labels')
        .where('persona_id', '=', personaId)
        .where('label', '=', label)
        .returning('version')
        .executeTakeFirst();
      if (!removed) throw new Rollback<HistoryMiss>({ status: 'label_not_found' });
      await recordEvent(trx, author, { action: 'label.removed', personaId, label, version: removed.version });
      return { status: 'done', version: removed.version };
    });
  }

  /** The gate is asked before If-Match is compared: a key that may not move the label learns nothing more. */
  private async lockAndAdmit(
    trx: Transaction<Database>,
    accountId: string,
    personaId: string,
    label: string,
    gate: LabelGate,
    expectedVersions: number[] | undefined,
  ): Promise<string | undefined> {
    const current = await lockPersona(trx, accountId, personaId, undefined);
    if (current === undefined) throw new Rollback<HistoryMiss>({ status: 'persona_not_found' });
    const evalId = await gate({
      policy: () => new LabelPolicyRepository(trx).find(personaId, label),
      completedRuns: (version) => new EvalRepository(trx).completedOf(personaId, version),
    });
    if (expectedVersions !== undefined && !expectedVersions.includes(current)) throw new Rollback<HistoryMiss>({ status: 'version_mismatch' });
    return evalId;
  }

  private async lockOrRollback(
    trx: Transaction<Database>,
    accountId: string,
    personaId: string,
    expectedVersions: number[] | undefined,
  ): Promise<void> {
    if ((await lockPersona(trx, accountId, personaId, expectedVersions)) !== undefined) return;
    const exists = await trx.selectFrom('personas').select('id').where('account_id', '=', accountId).where('id', '=', personaId).executeTakeFirst();
    throw new Rollback<HistoryMiss>({ status: exists ? 'version_mismatch' : 'persona_not_found' });
  }
}
