/** Reading the audit trail: newest first, account-scoped, paged by the time-ordered event id. */
import type { AuditEventRow, AuditRepository } from '../storage/audit-repository.js';

export const AUDIT_PAGE_SIZE = 100;

/** One change to a persona or its labels, as GET /v1/audit lists it. */
export interface AuditEvent {
  id: string;
  at: string;
  action: string;
  /** Null for key and budget events. */
  personaId: string | null;
  version: number | null;
  fromVersion: number | null;
  label: string | null;
  /** Id of the API key that made the change (never the key). */
  actor: string | null;
  requestId: string | null;
  /** key.* and budget.exceeded: the key the event is about. */
  keyId?: string | null;
  detail?: string | null;
}

export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | undefined;
  limit: number;
}

function toEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    at: row.created_at,
    action: row.action,
    personaId: row.persona_id === '' ? null : row.persona_id,
    version: row.version,
    fromVersion: row.from_version,
    label: row.label,
    actor: row.actor,
    requestId: row.request_id,
    ...(row.key_id === null ? {} : { keyId: row.key_id }),
    ...(row.detail === null ? {} : { detail: row.detail }),
  };
}

export class AuditTrail {
  constructor(private readonly events: AuditRepository) {}

  async list(accountId: string, query: { personaId?: string; limit?: number; cursor?: string }): Promise<AuditPage> {
    const limit = query.limit ?? AUDIT_PAGE_SIZE;
    // One extra row tells whether there is a next page without a second query.
    const rows = await this.events.list(accountId, { personaId: query.personaId, beforeId: query.cursor, limit: limit + 1 });
    const events = rows.slice(0, limit).map(toEvent);
    return { events, nextCursor: rows.length > limit ? events[events.length - 1]?.id : undefined, limit };
  }
}
