/** The account's usage: /v1/usage. */
import type { CallOptions, Transport } from './transport.js';
import type { UsageQuery, UsageRow } from './types.js';

export class Usage {
  constructor(private readonly transport: Transport) {}

  /** One row per UTC day × provider × model × endpoint (`refine` or `chat`), oldest day first; default range: this month so far. */
  async list(query: UsageQuery = {}, options?: CallOptions): Promise<UsageRow[]> {
    const params = new URLSearchParams();
    if (query.from !== undefined) params.set('from', query.from);
    if (query.to !== undefined) params.set('to', query.to);
    if (query.groupBy !== undefined) params.set('groupBy', query.groupBy);
    const search = params.toString() === '' ? '' : `?${params}`;
    return (await this.transport.call<UsageRow[]>({ method: 'GET', path: `/usage${search}`, answer: 'array' }, options)).body;
  }
}
