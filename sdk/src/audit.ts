/** The account's audit trail: /v1/audit. */
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
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    // Not `params.size`: Node before 18.16 and older browsers lack it, and the query would be dropped.
    const search = params.toString() === '' ? '' : `?${params}`;
    const { body, headers } = await this.transport.call<AuditEvent[]>({ method: 'GET', path: `/audit${search}`, answer: 'array' }, options);
    const next = /<[^>]*[?&]cursor=([^&>]+)[^>]*>;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1];
    return { events: body, nextCursor: next === undefined ? undefined : decodeURIComponent(next) };
  }
}
