/**
 * Migration 040 on both engines: the quality rows counted before it cost 0 tokens, their other
 * counts intact; rows added after it add their tokens; down drops the columns and up adds them again.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { QualityRepository } from '../../src/storage/quality-repository.js';
import { storageTargets } from '../helpers/storage-targets.js';

const BEFORE = '2026-11-28-039-review-queue';
const DAY = '2026-11-01';
const counted = { day: DAY, version: 1, answers: 2, scoreSum: 190, belowMinScore: 1, withRequiredFindings: 1, feedbackUp: 0, feedbackDown: 1, findings: {} };

describe.each(storageTargets)('migration 040 on $engine', (target) => {
  it('gives the rows counted before it 0 tokens, adds tokens after it, and down drops the columns', async () => {
    const database = await target.create();
    const storage = await openStorage(database.config);
    try {
      const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      const now = new Date().toISOString();
      await sql`insert into accounts (id, name, created_at) values ('acc', 'tokens', ${now})`.execute(storage.db);
      await sql`insert into personas (id, account_id, name, attributes, version, created_at, updated_at) values ('per', 'acc', 'P', '{}', 1, ${now}, ${now})`.execute(storage.db);
      // As the previous release wrote it.
      await sql`insert into quality_daily (account_id, persona_id, version, endpoint, day, answers, score_sum, below_min_score, with_required_findings, feedback_up, feedback_down)
        values ('acc', 'per', 1, 'refine', ${DAY}, 2, 190, 1, 1, 0, 1)`.execute(storage.db);
      await migrateToLatest(storage.db);

      const repository = new QualityRepository(storage.db, storage.engine);
      expect(await repository.list('acc', 'per', DAY, DAY)).toEqual([{ ...counted, inputTokens: 0, outputTokens: 0 }]);
      await repository.add([{
        accountId: 'acc', personaId: 'per', version: 1, endpoint: 'refine', day: DAY, answers: 1, scoreSum: 100, belowMinScore: 0,
        withRequiredFindings: 0, feedbackUp: 0, feedbackDown: 0, inputTokens: 40, outputTokens: 9, findings: new Map(),
      }]);
      expect(await repository.list('acc', 'per', DAY, DAY)).toEqual([{ ...counted, answers: 3, scoreSum: 290, inputTokens: 40, outputTokens: 9 }]);

      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      const kept = await sql<Record<string, unknown>>`select * from quality_daily`.execute(storage.db);
      expect(Object.keys(kept.rows[0]!)).not.toContain('input_tokens');
      expect(Number(kept.rows[0]!.answers)).toBe(3);
      await migrateToLatest(storage.db);
      expect(await repository.list('acc', 'per', DAY, DAY)).toEqual([{ ...counted, answers: 3, scoreSum: 290, inputTokens: 0, outputTokens: 0 }]);
    } finally {
      await storage.close();
      await database.remove();
    }
  });
});
