import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/storage/migrations/index.js';
import { migrateToLatest } from '../../src/storage/database.js';
import type { Database } from '../../src/storage/schema.js';
import { storageTargets } from '../helpers/storage-targets.js';

async function connect(config: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }): Promise<Kysely<Database>> {
  if (config.kind === 'sqlite') {
    const { default: Sqlite } = await import('better-sqlite3');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: new Sqlite(config.path) }) });
  }
  const { default: pg } = await import('pg');
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: config.url }) }) });
}

describe.each(storageTargets)('the persona-history migration on $engine', (target) => {
  it("turns each existing persona's current state into its version", async () => {
    const database = await target.create();
    const db = await connect(database.config as never);
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('2026-11-22-002-idempotency')).error).toBeUndefined();
      await db.insertInto('accounts').values({ id: 'acc', name: 'legacy', created_at: '2026-11-01T00:00:00.000Z' }).execute();
      await db
        .insertInto('personas')
        .values([
          { id: 'p1', account_id: 'acc', name: 'Edited four times', attributes: '{"tone":"dry","a":[1]}', version: 5, created_at: '2026-11-01T00:00:00.000Z', updated_at: '2026-11-02T00:00:00.000Z' },
          { id: 'p2', account_id: 'acc', name: 'Fresh', attributes: '{}', version: 1, created_at: '2026-11-03T00:00:00.000Z', updated_at: '2026-11-03T00:00:00.000Z' },
        ])
        .execute();

      await migrateToLatest(db);

      const versions = await db.selectFrom('persona_versions').selectAll().orderBy('persona_id').execute();
      expect(versions).toEqual([
        { persona_id: 'p1', version: 5, account_id: 'acc', name: 'Edited four times', attributes: '{"tone":"dry","a":[1]}', created_at: '2026-11-02T00:00:00.000Z', created_by: null },
        { persona_id: 'p2', version: 1, account_id: 'acc', name: 'Fresh', attributes: '{}', created_at: '2026-11-03T00:00:00.000Z', created_by: null },
      ]);
      expect(await db.selectFrom('audit_events').selectAll().execute()).toEqual([]);
    } finally {
      await db.destroy();
      await database.remove();
    }
  });
});
