/**
 * Migration 035 on both engines: a run stored before its summary counted errored samples
 * gets the count from its stored results, so it answers `errored` and a label gate weighs it.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { storageTargets } from '../helpers/storage-targets.js';

describe.each(storageTargets)('migration 035 on $engine', (target) => {
  it('counts the errored results of each stored run into its summary; down takes the count out again', async () => {
    const database = await target.create();
    const storage = await openStorage(database.config);
    try {
      const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('2026-11-27-030-evaluations')).error).toBeUndefined();
      const at = new Date().toISOString();
      const usage = { inputTokens: 1, outputTokens: 1, providerCalls: 1 };
      const summary = JSON.stringify({ score: 100, passRate: 0.3333, minScore: null, violations: {}, usage });
      // As the previous release wrote them: one run with an errored sample, one without any result.
      for (const id of ['run-errored', 'run-empty']) {
        await sql`insert into eval_runs (id, account_id, persona_id, version, status, provider, model, judge, concurrency, total, done, summary, error, created_at, finished_at, created_by, owner, heartbeat_at)
          values (${id}, 'acc', 'p', 1, 'completed', 'openai', null, null, 1, 3, 3, ${summary}, null, ${at}, ${at}, 'key_old', 'gone', ${at})`.execute(storage.db);
      }
      const answered = { sampleId: 's1', response: 'Hi "error":{', score: 100, scores: { rules: 100, facts: 100 }, violations: [], passed: true };
      const errored = { sampleId: 's2', response: null, score: null, scores: null, violations: [], passed: false, error: { error: 400, message: 'provider "openai" refused' } };
      for (const [seq, result] of [answered, errored, { ...errored, sampleId: 's3' }].entries()) {
        await sql`insert into eval_results (eval_id, seq, sample_id, position, result) values ('run-errored', ${seq + 1}, ${result.sampleId}, ${seq}, ${JSON.stringify(result)})`.execute(storage.db);
      }
      await migrateToLatest(storage.db);
      const summaries = async () =>
        Object.fromEntries((await storage.db.selectFrom('eval_runs').select(['id', 'summary']).execute()).map((row) => [row.id, JSON.parse(row.summary)]));
      expect(await summaries()).toEqual({
        'run-errored': { ...JSON.parse(summary), errored: 2 },
        'run-empty': { ...JSON.parse(summary), errored: 0 },
      });
      expect((await migrator.migrateTo('2026-11-27-030-evaluations')).error).toBeUndefined();
      expect(Object.values(await summaries())).toEqual([JSON.parse(summary), JSON.parse(summary)]);
    } finally {
      await storage.close();
      await database.remove();
    }
  });
});
