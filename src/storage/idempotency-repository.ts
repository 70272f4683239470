/**
 * Idempotency records. The primary key (account, operation, key) is the lock:
 * whichever request inserts the row first owns it, on every instance sharing
 * the database. A row with a null status is a request still running.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from './schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;
export type IdempotencyScope = Pick<IdempotencyRow, 'account_id' | 'operation' | 'key'>;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class IdempotencyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** True when this call now owns the key. */
  async tryBegin(scope: IdempotencyScope, requestHash: string, now: Date, ttlMs: number): Promise<boolean> {
    const result = await this.db
      .insertInto('idempotency_keys')
      .values({
        ...scope,
        request_hash: requestHash,
        status: null,
        response_headers: null,
        response_body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + ttlMs).toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  find(scope: IdempotencyScope): Promise<IdempotencyRow | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', scope.account_id)
      .where('operation', '=', scope.operation)
      .where('key', '=', scope.key)
      .executeTakeFirst();
  }

  async complete(scope: IdempotencyScope, response: StoredResponse): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ status: response.status, response_headers: JSON.stringify(response.headers), response_body: response.body })
      .where('account_id', '=', scope.account_id)
      .where('operation', '=', scope.operation)
      .where('key', '=', scope.key)
      .execute();
  }

  /**
   * Deletes the row when it is still running and older than `staleBefore`
   * (its owner crashed or gave up), or expired: either way the key is free again.
   */
  async release(scope: IdempotencyScope, conditions: { staleBefore?: string; expiredBefore?: string } = {}): Promise<void> {
    let query = this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', scope.account_id)
      .where('operation', '=', scope.operation)
      .where('key', '=', scope.key);
    if (conditions.staleBefore !== undefined) {
      query = query.where('status', 'is', null).where('created_at', '<', conditions.staleBefore);
    }
    if (conditions.expiredBefore !== undefined) query = query.where('expires_at', '<', conditions.expiredBefore);
    await query.execute();
  }

  async purgeExpired(now: Date): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('expires_at', '<', now.toISOString()).execute();
  }
}
