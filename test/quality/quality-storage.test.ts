/**
 * The quality counters and feedback in storage, on both engines, as two instances use them:
 * concurrent upserts lose nothing, a failed flush keeps its counts, and racing feedback on one
 * request leaves one row whose rating is the only one counted.
 */
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
    const recorders = [first, second].map((s) => new QualityRecorder(new QualityRepository(s.db), new FeedbackRepository(s.db), 60_000, failOnError));
    for (let round = 0; round < 20; round++) {
      recorders.forEach((recorder, i) => recorder.record(event(`race-${round}-${i}`, i === 0 ? 80 : 100)));
      await Promise.all(recorders.map((recorder) => recorder.flush()));
    }
    const [row] = await new QualityRepository(first.db).list(ACCOUNT, PERSONA, '2026-11-01', '2026-11-01');
    expect(row).toEqual({
      day: '2026-11-01', version: 1, answers: 40, scoreSum: 3600, belowMinScore: 20, withRequiredFindings: 20, feedbackUp: 0, feedbackDown: 0,
      inputTokens: 280, outputTokens: 120, findings: { avoid: 20 },
    });
  });

  it('a failed flush keeps its counts and log rows for the next one', async () => {
    const errors: unknown[] = [];
    let broken = true;
    const repository = new QualityRepository(first.db);
    const flaky = Object.create(repository) as QualityRepository;
    flaky.add = async (increments) => {
      if (broken) throw new StorageUnavailableError(new Error('connect ECONNREFUSED'));
      return repository.add(increments);
    };
    const recorder = new QualityRecorder(flaky, new FeedbackRepository(first.db), 60_000, (error) => errors.push(error));
    const day = Date.parse('2026-11-02T08:00:00Z');
    recorder.record(event('kept-1', 100, day));
    await recorder.flush();
    expect(errors).toHaveLength(1);
    broken = false;
    recorder.record(event('kept-2', 90, day));
    await recorder.close();
    const [row] = await repository.list(ACCOUNT, PERSONA, '2026-11-02', '2026-11-02');
    expect(row?.answers).toBe(2);
    expect(await new FeedbackRepository(first.db).answer(ACCOUNT, 'kept-1', '2026-01-01')).toMatchObject({ personaId: PERSONA, version: 1 });
  });

  it('feedback racing on one request from two instances leaves one row, and only its rating counted', async () => {
    const at = Date.now();
    const services = [first, second].map((s) => {
      const log = new FeedbackRepository(s.db);
      const recorder = new QualityRecorder(new QualityRepository(s.db), log, 60_000, failOnError);
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
    const [row] = await new QualityRepository(first.db).list(ACCOUNT, PERSONA, day, day);
    expect({ up: row?.feedbackUp, down: row?.feedbackDown }).toEqual(stored[0]!.rating === 'up' ? { up: 1, down: 0 } : { up: 0, down: 1 });
  });
});
