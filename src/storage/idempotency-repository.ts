/**
 * Idempotency records. The primary key (account, operation, key) is the lock:
 * whichever request inserts the row first owns it, on every instance sharing
 * the database. A row with a null status is a request still running.
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Engine } from './database.js';
import { precompiled } from './precompiled.js';
import type { Database, IdempotencyKeysTable } from './schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;
export type IdempotencyScope = Pick<IdempotencyRow, 'account_id' | 'operation' | 'key'>;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** A scope beyond the route's that the answer depended on: a replay needs it. */
  requiredScope?: string | null;
}

export class IdempotencyRepository {
  // Every request with a key runs these two: compiled once (docs/performance.md, "How the service meets them").
  private readonly insertRunning;
  private readonly storeAnswer;

  constructor(
    private readonly db: Kysely<Database>,
    engine: Engine,
  ) {
    // On PostgreSQL these two commit without waiting for the WAL to reach the disk (docs/storage-and-reliability.md,
    // "Durability"). Evaluated for the row written, so it is local to that statement's own transaction and applies
    // to its commit alone, with no round trip of its own; the connection goes back to the pool synchronous.
    const asynchronousCommit = engine === 'postgres';
    const commitWithoutFlush = sql<string>`set_config('synchronous_commit', 'off', true)`.as('synchronous_commit');
    this.insertRunning = precompiled(
      db
        .insertInto('idempotency_keys')
        .values({ account_id: '', operation: '', key: '', request_hash: '', created_at: '', expires_at: '' })
        .onConflict((oc) => oc.doNothing())
        .$if(asynchronousCommit, (q) => q.returning(commitWithoutFlush)),
      6,
    );
    this.storeAnswer = precompiled(
      db
        .updateTable('idempotency_keys')
        .set({ status: 0, response_headers: '', response_body: '', required_scope: '' })
        .where('account_id', '=', '')
        .where('operation', '=', '')
        .where('key', '=', '')
        .$if(asynchronousCommit, (q) => q.returning(commitWithoutFlush)),
      7,
    );
  }

  /** True when this call now owns the key. The columns left out (status, the answer) start null: running. */
  async tryBegin(scope: IdempotencyScope, requestHash: string, now: Date, ttlMs: number): Promise<boolean> {
    const result = await this.insertRunning(
      this.db, scope.account_id, scope.operation, scope.key, requestHash, now.toISOString(), new Date(now.getTime() + ttlMs).toISOString(),
    );
    return Number(result.numAffectedRows ?? 0n) > 0;
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
    await this.storeAnswer(
      this.db, response.status, JSON.stringify(response.headers), response.body, response.requiredScope ?? null, scope.account_id, scope.operation, scope.key,
    );
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
