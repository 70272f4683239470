/**
 * What every persona write shares: it runs in one transaction that also
 * records the new version (when there is one) and the audit event, so a
 * change never exists without its history and its event, nor the other way.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import { uuidv7 } from '../ids.js';
import type { AuditAction, AuditEventsTable, Database, PersonasTable } from './schema.js';

/** Who is changing what, and when; carried into the version and the audit event. */
export interface ChangeAuthor {
  accountId: string;
  /** Id of the acting API key. */
  keyId: string;
  requestId: string;
  /** ISO time of the change. */
  at: string;
}

/** The acting key and request, as the HTTP layer knows them. */
export type Actor = Omit<ChangeAuthor, 'at'>;

type PersonaRow = Selectable<PersonasTable>;

export interface AuditEntry {
  action: AuditAction;
  /** Absent for key and budget events. */
  personaId?: string;
  version?: number | null;
  fromVersion?: number | null;
  label?: string | null;
  /** The key a key or budget event is about. */
  keyId?: string | null;
  detail?: string | null;
}

/** Ends a transaction early (rolled back) with a result the caller turns into an outcome. */
export class Rollback<T> {
  constructor(readonly outcome: T) {}
}

export async function inTransaction<T, R>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T | R> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if (error instanceof Rollback) return error.outcome as R;
    throw error;
  }
}

export async function recordVersion(trx: Transaction<Database>, row: PersonaRow, author: ChangeAuthor): Promise<void> {
  await trx
    .insertInto('persona_versions')
    .values({
      persona_id: row.id,
      version: row.version,
      account_id: row.account_id,
      name: row.name,
      attributes: row.attributes,
      created_at: author.at,
      created_by: author.keyId,
    })
    .execute();
}

export async function recordEvent(trx: Transaction<Database> | Kysely<Database>, author: ChangeAuthor, entry: AuditEntry): Promise<void> {
  const event: AuditEventsTable = {
    id: uuidv7(),
    account_id: author.accountId,
    action: entry.action,
    persona_id: entry.personaId ?? '',
    version: entry.version ?? null,
    from_version: entry.fromVersion ?? null,
    label: entry.label ?? null,
    actor: author.keyId,
    request_id: author.requestId,
    created_at: author.at,
    key_id: entry.keyId ?? null,
    detail: entry.detail ?? null,
  };
  await trx.insertInto('audit_events').values(event).execute();
}

/**
 * Takes the persona's row lock first (a no-op UPDATE), so writers to one
 * persona queue up on every engine and instance, and SQLite never has to
 * upgrade a read lock mid-transaction. Returns the current version, or
 * undefined when the persona is missing or `expectedVersions` does not hold.
 */
export async function lockPersona(
  trx: Transaction<Database>,
  accountId: string,
  id: string,
  expectedVersions: number[] | undefined,
): Promise<number | undefined> {
  let query = trx
    .updateTable('personas')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (expectedVersions !== undefined) query = query.where('version', 'in', expectedVersions);
  return (await query.returning('version').executeTakeFirst())?.version;
}
