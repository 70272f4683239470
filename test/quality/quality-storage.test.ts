/**
 * The quality counters and feedback in storage, on both engines, as two instances use them:
 * concurrent upserts lose nothing, a failed flush keeps its counts, and racing feedback on one
 * request leaves one row whose rating is the only one counted.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { PersonaRepository } from '../../src/storage/persona-repository.js';
import { PersonaService } from '../../src/personas/persona-service.js';
import { FeedbackService } from '../../src/quality/feedback-service.js';
import { QualityRecorder } from '../../src/quality/quality-recorder.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { FeedbackRepository } from '../../src/storage/feedback-repository.js';
import { QualityRepository } from '../../src/storage/quality-repository.js';
import { StorageUnavailableError } from '../../src/storage/storage-errors.js';
import { storageTargets } from '../helpers/storage-targets.js';

const ACCOUNT = 'acct-quality';
const PERSONA = '01890000-0000-7000-8000-000000000001';
const failOnError = (error: unknown) => {
  throw error;
};

describe.each(storageTargets)('quality counters and feedback on $engine', (target) => {
  let database: Awaited<ReturnType<typeof target.create>>;
  let first: Storage;
  let second: Storage;

  beforeAll(async () => {
    database = await target.create();
    // Two connections to one database: two instances behind a load balancer.
    first = await openStorage(database.config);
    second = await openStorage(database.config);
    const now = new Date().toISOString();
    await first.db.insertInto('accounts').values({ id: ACCOUNT, name: 'quality', created_at: now }).execute();
    await first.db.insertInto('personas').values({ id: PERSONA, account_id: ACCOUNT, name: 'Q', attributes: '{}', version: 1, created_at: now, updated_at: now }).execute();
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.remove();
  });

  const event = (requestId: string, score: number, at = Date.parse('2026-11-01T12:00:00Z')) => ({
    accountId: ACCOUNT, keyId: 'key_q', personaId: PERSONA, version: 1, endpoint: 'refine' as const, requestId, score, minScore: 90,
    findings: score < 100 ? [{ rule: 'avoid' as const, severity: 'required' as const }] : [], inputTokens: 7, outputTokens: 3, at,
  });

  it('two recorders counting into the same rows concurrently lose no answer', async () => {
    const recorders = [first, second].map((s) => new QualityRecorder(new QualityRepository(s.db, s.engine), new FeedbackRepository(s.db, s.engine), 60_000, failOnError));
    for (let round = 0; round < 20; round++) {
      recorders.forEach((recorder, i) => recorder.record(event(`race-${round}-${i}`, i === 0 ? 80 : 100)));
      await Promise.all(recorders.map((recorder) => recorder.flush()));
    }
    const [row] = await new QualityRepository(first.db, first.engine).list(ACCOUNT, PERSONA, '2026-11-01', '2026-11-01');
    expect(row).toEqual({
      day: '2026-11-01', version: 1, answers: 40, scoreSum: 3600, belowMinScore: 20, withRequiredFindings: 20, feedbackUp: 0, feedbackDown: 0,
      inputTokens: 280, outputTokens: 120, findings: { avoid: 20 },
    });
  });

  it('a failed flush keeps its counts and log rows for the next one', async () => {
    const errors: unknown[] = [];
    let broken = true;
    const repository = new QualityRepository(first.db, first.engine);
    const flaky = Object.create(repository) as QualityRepository;
    flaky.add = async (increments) => {
      if (broken) throw new StorageUnavailableError(new Error('connect ECONNREFUSED'));
      return repository.add(increments);
    };
    const recorder = new QualityRecorder(flaky, new FeedbackRepository(first.db, first.engine), 60_000, (error) => errors.push(error));
    const day = Date.parse('2026-11-02T08:00:00Z');
    recorder.record(event('kept-1', 100, day));
    await recorder.flush();
    expect(errors).toHaveLength(1);
    broken = false;
    recorder.record(event('kept-2', 90, day));
    await recorder.close();
    const [row] = await repository.list(ACCOUNT, PERSONA, '2026-11-02', '2026-11-02');
    expect(row?.answers).toBe(2);
    expect(await new FeedbackRepository(first.db, first.engine).answer(ACCOUNT, 'kept-1', '2026-01-01')).toMatchObject({ personaId: PERSONA, version: 1 });
  });

  it('feedback racing on one request from two instances leaves one row, and only its rating counted', async () => {
    const at = Date.now();
    const services = [first, second].map((s) => {
      const log = new FeedbackRepository(s.db, s.engine);
      const recorder = new QualityRecorder(new QualityRepository(s.db, s.engine), log, 60_000, failOnError);
      const personas = new PersonaService(new PersonaRepository(s.db));
      return { recorder, feedback: new FeedbackService(log, recorder, personas, systemClock, 10) };
    });
    services[0]!.recorder.record(event('rated-1', 100, at));
    await services[0]!.recorder.flush();
    const ratings = ['up', 'down', 'up', 'down', 'down', 'up'] as const;
    await Promise.all(ratings.map((rating, i) => services[i % 2]!.feedback.give(ACCOUNT, 'key_q', { requestId: 'rated-1', rating })));
    await Promise.all(services.map(({ recorder }) => recorder.flush()));
    const stored = await first.db.selectFrom('feedback').selectAll().where('request_id', '=', 'rated-1').execute();
    expect(stored).toHaveLength(1);
    const day = new Date(at).toISOString().slice(0, 10);
    const [row] = await new QualityRepository(first.db, first.engine).list(ACCOUNT, PERSONA, day, day);
    expect({ up: row?.feedbackUp, down: row?.feedbackDown }).toEqual(stored[0]!.rating === 'up' ? { up: 1, down: 0 } : { up: 0, down: 1 });
  });

  it.runIf(target.engine === 'postgres')('a batch written while a deletion of its persona is still open is gone once that deletion commits', async () => {
    const persona = '01890000-0000-7000-8000-0000000000d1';
    const now = new Date().toISOString();
    await first.db.insertInto('personas').values({ id: persona, account_id: ACCOUNT, name: 'Doomed', attributes: '{}', version: 1, created_at: now, updated_at: now }).execute();
    const increment = {
      accountId: ACCOUNT, personaId: persona, version: 1, endpoint: 'refine' as const, day: '2026-11-02', answers: 1, scoreSum: 90, belowMinScore: 0,
      withRequiredFindings: 0, feedbackUp: 0, feedbackDown: 0, inputTokens: 0, outputTokens: 0, findings: new Map([['avoid', 1]]),
    };
    const logged = { accountId: ACCOUNT, requestId: 'doomed-1', keyId: 'key_q', personaId: persona, version: 1, endpoint: 'refine' as const, answeredAt: now };
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let deleting!: () => void;
    const deleted = new Promise<void>((resolve) => (deleting = resolve));
    // The persona's deletion as the persona repository makes it, held open: its rows deleted before the batch's exist.
    const deletion = second.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('personas').where('id', '=', persona).execute();
      for (const table of ['quality_daily', 'quality_findings_daily', 'answer_log'] as const) await trx.deleteFrom(table).where('persona_id', '=', persona).execute();
      deleting();
      await committed;
    });
    await deleted;
    const written = Promise.all([new QualityRepository(first.db, first.engine).add([increment]), new FeedbackRepository(first.db, first.engine).log([logged])]);
    // Both writers wait on the deletion's row lock before looking at their persona again.
    await expect
      .poll(async () => Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(first.db)).rows[0]!.n))
      .toBe(2);
    commit();
    await deletion;
    await written;
    for (const table of ['quality_daily', 'quality_findings_daily', 'answer_log'] as const) {
      expect(await first.db.selectFrom(table).select('persona_id').where('persona_id', '=', persona).execute(), table).toEqual([]);
    }
  });
});
