/**
 * Rows that belong to a persona, written from a buffer outside the persona's own transactions
 * (quality counts, the answer log): a persona deleted meanwhile must not keep them
 * (docs/quality.md, "Deleting a persona").
 */
import type { Kysely } from 'kysely';
import type { Engine } from './database.js';
import type { Database } from './schema.js';

type PersonaRow = { accountId: string; personaId: string };

const personaKey = (row: PersonaRow) => `${row.accountId}\u0000${row.personaId}`;

/** Account × id of those of `ids` that exist; `locked` waits on a deletion still open (PostgreSQL's key-share lock). */
async function existingPersonas(db: Kysely<Database>, ids: string[], locked: boolean): Promise<Set<string>> {
  const present = await db.selectFrom('personas').select(['id', 'account_id']).where('id', 'in', ids).$if(locked, (query) => query.forKeyShare()).execute();
  return new Set(present.map((persona) => personaKey({ accountId: persona.account_id, personaId: persona.id })));
}

/** Before a batch is written: its rows whose persona still exists. */
export async function rowsOfExistingPersonas<Row extends PersonaRow>(db: Kysely<Database>, rows: Row[]): Promise<Row[]> {
  if (rows.length === 0) return [];
  const exists = await existingPersonas(db, [...new Set(rows.map((row) => row.personaId))], false);
  return rows.filter((row) => exists.has(personaKey(row)));
}

export type PersonaRowTable = 'quality_daily' | 'quality_findings_daily' | 'answer_log';

/**
 * After a batch is written: deletes its rows whose persona is gone. A deletion commits its
 * persona row and that persona's rows together; one still open when the batch was written had
 * deleted those rows before the batch's existed. On PostgreSQL the read waits on the deleting
 * transaction's row lock, so it sees that deletion's outcome, never the persona as it was
 * before; SQLite runs one transaction at a time, so there is nothing to wait for.
 */
export async function dropRowsOfDeletedPersonas(
  db: Kysely<Database>,
  engine: Engine,
  tables: readonly PersonaRowTable[],
  written: readonly PersonaRow[],
): Promise<void> {
  const ids = [...new Set(written.map((row) => row.personaId))];
  if (ids.length === 0) return;
  const exists = await existingPersonas(db, ids, engine === 'postgres');
  const gone = written.filter((row) => !exists.has(personaKey(row)));
  for (const { accountId, personaId } of new Map(gone.map((row) => [personaKey(row), row])).values()) {
    for (const table of tables) await db.deleteFrom(table).where('account_id', '=', accountId).where('persona_id', '=', personaId).execute();
  }
}

/** Every row in `tables` whose persona is gone, whatever wrote it: the hourly prune's. */
export async function dropOrphanRows(db: Kysely<Database>, tables: readonly PersonaRowTable[]): Promise<void> {
  for (const table of tables) {
    await db
      .deleteFrom(table)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('personas').select('personas.id').whereRef('personas.id', '=', `${table}.persona_id`).whereRef('personas.account_id', '=', `${table}.account_id`))),
      )
      .execute();
  }
}
