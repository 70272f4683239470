/** Reads the audit trail; events are written by the changes themselves (change-log.ts). */
import type { Kysely, Selectable } from 'kysely';
import type { AuditEventsTable, Database } from './schema.js';

export type AuditEventRow = Selectable<AuditEventsTable>;

export class AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Newest first; `beforeId` is the keyset cursor (ids are time-ordered). */
  list(accountId: string, page: { personaId?: string; beforeId?: string; limit: number }): Promise<AuditEventRow[]> {
    let query = this.db.selectFrom('audit_events').selectAll().where('account_id', '=', accountId);
    if (page.personaId !== undefined) query = query.where('persona_id', '=', page.personaId);
    if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }
}
