/**
 * On PostgreSQL the claim of an Idempotency-Key and its stored answer commit without waiting
 * for the WAL flush (docs/storage-and-reliability.md, "Durability"); every other write, on the
 * same pooled connection included, still waits for it.
 */
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { IdempotencyRepository } from '../../src/storage/idempotency-repository.js';
import type { Database } from '../../src/storage/schema.js';
import { postgresAvailable } from '../helpers/services.js';
import { postgresTarget } from '../helpers/storage-targets.js';

describe.skipIf(!postgresAvailable)('PostgreSQL: idempotency commits', () => {
  let storage: Storage;
  let remove: () => Promise<void>;
  let accountId: string;
  beforeAll(async () => {
    const database = await postgresTarget.create();
    remove = database.remove;
    storage = await openStorage(database.config);
    accountId = 'idem-commits';
    await storage.db.insertInto('accounts').values({ id: accountId, name: accountId, created_at: new Date().toISOString() }).execute();
  });
  afterAll(async () => {
    await storage?.close();
    await remove?.();
  });

  const synchronousCommit = async (db: Kysely<Database>) =>
    (await sql<{ setting: string }>`select current_setting('synchronous_commit') as setting`.execute(db)).rows[0]!.setting;
  const scope = (key: string) => ({ account_id: accountId, operation: 'POST /v1/refine', key });
  const answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"response":"ok"}' };

  it('the claim and the stored answer each commit with synchronous_commit off', async () => {
    await storage.db.transaction().execute(async (trx) => {
      expect(await new IdempotencyRepository(trx, 'postgres').tryBegin(scope('claim'), 'hash', new Date(), 60_000)).toBe(true);
      expect(await synchronousCommit(trx)).toBe('off');
    });
    await storage.db.transaction().execute(async (trx) => {
      await new IdempotencyRepository(trx, 'postgres').complete(scope('claim'), answer);
      expect(await synchronousCommit(trx)).toBe('off');
    });
    const stored = await new IdempotencyRepository(storage.db, 'postgres').find(scope('claim'));
    expect(stored).toMatchObject({ status: 200, response_body: answer.body });
  });

  it('a key already claimed changes nothing, and the connection goes back to the pool synchronous', async () => {
    await storage.db.connection().execute(async (connection) => {
      const repository = new IdempotencyRepository(connection, 'postgres');
      expect(await repository.tryBegin(scope('pooled'), 'hash', new Date(), 60_000)).toBe(true);
      expect(await synchronousCommit(connection)).toBe('on');
      expect(await repository.tryBegin(scope('pooled'), 'hash', new Date(), 60_000)).toBe(false);
      await repository.complete(scope('pooled'), answer);
      expect(await synchronousCommit(connection)).toBe('on');
    });
  });
});
