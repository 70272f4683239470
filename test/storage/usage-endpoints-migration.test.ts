/**
 * Migration 037 on both engines: the usage rows counted before it are `refine` rows, the
 * counters intact, `endpoint` is part of each row's key (a chat row beside a refine row of the
 * same day, provider and model), and down sums the endpoints of a key into one row again.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { UsageRepository } from '../../src/storage/usage-repository.js';
import { storageTargets } from '../helpers/storage-targets.js';

const BEFORE = '2026-11-28-036-idempotency-scopes';
const counts = { refines: 2, failures: 1, cacheHits: 0, providerCalls: 3, inputTokens: 40, outputTokens: 9 };

describe.each(storageTargets)('migration 037 on $engine', (target) => {
  it('keeps the counted rows as refine rows, keys rows by endpoint, and down sums them back', async () => {
    const database = await target.create();
    const storage = await openStorage(database.config);
    try {
      const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      // As the previous release wrote them.
      await sql`insert into usage_daily (account_id, day, provider, model, refines, failures, cache_hits, provider_calls, input_tokens, output_tokens)
        values ('acc', '2026-11-01', 'openai', 'gpt-x', 2, 1, 0, 3, 40, 9)`.execute(storage.db);
      await sql`insert into usage_daily_keys (account_id, day, provider, model, key_id, refines, failures, cache_hits, provider_calls, input_tokens, output_tokens)
        values ('acc', '2026-11-01', 'openai', 'gpt-x', 'key_a', 2, 1, 0, 3, 40, 9)`.execute(storage.db);
      await migrateToLatest(storage.db);

      const repository = new UsageRepository(storage.db);
      const row = { day: '2026-11-01', provider: 'openai', model: 'gpt-x' };
      expect(await repository.list('acc', '2026-11-01', '2026-11-01')).toEqual([{ ...row, endpoint: 'refine', ...counts }]);
      expect(await repository.listByKey('acc', '2026-11-01', '2026-11-01')).toEqual([{ ...row, endpoint: 'refine', keyId: 'key_a', ...counts }]);

      await repository.add([{ accountId: 'acc', keyId: 'key_a', ...row, endpoint: 'chat', ...counts }]);
      expect((await repository.list('acc', '2026-11-01', '2026-11-01')).map((listed) => listed.endpoint)).toEqual(['chat', 'refine']);

      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      const summed = await sql<Record<string, unknown>>`select refines, provider_calls, input_tokens from usage_daily`.execute(storage.db);
      expect(summed.rows.map((r) => Object.values(r).map(Number))).toEqual([[4, 6, 80]]);
      const byKey = await sql<Record<string, unknown>>`select key_id, refines from usage_daily_keys`.execute(storage.db);
      expect(byKey.rows.map((r) => [r.key_id, Number(r.refines)])).toEqual([['key_a', 4]]);
      // And up again, on the tables down left.
      await migrateToLatest(storage.db);
      expect(await repository.list('acc', '2026-11-01', '2026-11-01')).toEqual([{ ...row, endpoint: 'refine', ...counts, refines: 4, failures: 2, providerCalls: 6, inputTokens: 80, outputTokens: 18 }]);
    } finally {
      await storage.close();
      await database.remove();
    }
  });
});
