/** The account's audit trail: /v1/audit. */
import { nextCursorOf, searchOf } from './next-page.js';
import type { CallOptions, Transport } from './transport.js';
import type { AuditEvent } from './types.js';

export interface AuditQuery {
  /** Only this persona's events (also after it was deleted). */
  personaId?: string;
  /** Page size, 1-1000; default 100. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface AuditPage {
  /** Newest first. */
  events: AuditEvent[];
  /** Pass as `cursor` for the next (older) page; undefined on the last page. */
  nextCursor: string | undefined;
}

export class Audit {
  constructor(private readonly transport: Transport) {}

  async list(query: AuditQuery = {}, options?: CallOptions): Promise<AuditPage> {
    const { body, headers } = await this.transport.call<AuditEvent[]>({ method: 'GET', path: `/audit${searchOf({ ...query })}`, answer: 'array' }, options);
    return { events: body, nextCursor: nextCursorOf(headers) };
  }
}
