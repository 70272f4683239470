import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { SecretRepository } from '../../src/storage/secret-repository.js';
import { StorageUnavailableError } from '../../src/storage/storage-errors.js';
import { UsageRepository } from '../../src/storage/usage-repository.js';
import { UsageRecorder } from '../../src/usage/usage-recorder.js';
import { UsageTally } from '../../src/usage/usage-tally.js';
import { storageTargets } from '../helpers/storage-targets.js';

const answered = (input: number, output: number) => {
  const tally = new UsageTally();
  tally.addAnswer({ inputTokens: input, outputTokens: output });
  return tally;
};

describe.each(storageTargets)('usage counters on $engine', (target) => {
  let database: Awaited<ReturnType<typeof target.create>>;
  let first: Storage;
  let second: Storage;
  const account = 'acct-usage';

  beforeAll(async () => {
    database = await target.create();
    // Two connections to one database: two instances behind a load balancer.
    first = await openStorage(database.config);
    second = await openStorage(database.config);
    await first.db.insertInto('accounts').values({ id: account, name: 'usage', created_at: new Date().toISOString() }).execute();
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.remove();
  });

  it('two instances upserting the same rows concurrently lose no increment', async () => {
    const rows = ['gpt-a', 'gpt-b', 'gpt-c'].map((model) => ({ accountId: account, keyId: 'key_a', day: '2026-11-01', provider: 'openai', model, endpoint: 'refine' as const }));
    const one = { refines: 1, failures: 0, cacheHits: 0, providerCalls: 2, inputTokens: 10, outputTokens: 7 };
    const writers = [new UsageRepository(first.db), new UsageRepository(second.db)];
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => writers[i % 2]!.add(rows.map((row) => ({ ...row, ...one })))),
    );
    const listed = await new UsageRepository(first.db).list(account, '2026-11-01', '2026-11-01');
    expect(listed).toEqual(
      rows.map(({ day, provider, model }) => ({
        day, provider, model, endpoint: 'refine', refines: 60, failures: 0, cacheHits: 0, providerCalls: 120, inputTokens: 600, outputTokens: 420,
      })),
    );
    // The same counts, split by key (one key here).
    expect(await new UsageRepository(first.db).listByKey(account, '2026-11-01', '2026-11-01')).toEqual(
      rows.map(({ day, provider, model }) => ({
        day, provider, model, endpoint: 'refine', keyId: 'key_a', refines: 60, failures: 0, cacheHits: 0, providerCalls: 120, inputTokens: 600, outputTokens: 420,
      })),
    );
  });

  it('two recorders counting refines into the same rows, flushing while they count, lose nothing', async () => {
    const metrics = createMetrics();
    const failOnError = (error: unknown) => {
      throw error;
    };
    const recorders = [first, second].map((s) => new UsageRecorder(new UsageRepository(s.db), metrics, 5, failOnError));
    const day = new Date('2026-11-02T12:00:00Z');
    for (let i = 0; i < 400; i++) {
      const recorder = recorders[i % 2]!;
      recorder.record(account, [{ provider: 'anthropic', model: 'claude-x', outcome: i % 10 === 0 ? 'cache_hit' : 'answered', tally: i % 10 === 0 ? new UsageTally() : answered(3, 2) }], day);
      // sleeps because the recorders' 5 ms flush timers must fire between records, so two instances' flushes interleave
      if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 7));
    }
    await Promise.all(recorders.map((r) => r.close()));
    const [row] = await new UsageRepository(second.db).list(account, '2026-11-02', '2026-11-02');
    expect(row).toEqual({
      day: '2026-11-02', provider: 'anthropic', model: 'claude-x', endpoint: 'refine',
      refines: 400, failures: 0, cacheHits: 40, providerCalls: 360, inputTokens: 1080, outputTokens: 720,
    });
    const exported = await metrics.registry.getSingleMetricAsString('persona_refine_tokens_total');
    expect(exported).toContain('persona_refine_tokens_total{provider="anthropic",model="claude-x",direction="input"} 1080');
    expect(exported).toContain('persona_refine_tokens_total{provider="anthropic",model="claude-x",direction="output"} 720');
    expect(exported).not.toContain(account);
  });

  it('a row the database refuses never holds back the others: it alone is dropped, and later flushes work', async () => {
    const refused: string[] = [];
    const repository = new UsageRepository(first.db);
    const recorder = new UsageRecorder(repository, createMetrics(), 60_000, () => {}, (increment) => refused.push(increment.model));
    const day = new Date('2026-11-05T12:00:00Z');
    // PostgreSQL cannot store a NUL in text (SQLite can): the refine path refuses such a model, this proves the flush copes anyway.
    for (const model of ['before-model', 'echo:400,zz\u0000', 'after-model']) {
      recorder.record(account, [{ provider: 'openai', model, outcome: 'answered', tally: answered(1, 1) }], day);
    }
    await recorder.flush();
    recorder.record(account, [{ provider: 'openai', model: 'later-model', outcome: 'answered', tally: answered(1, 1) }], day);
    await recorder.close();
    const models = (await repository.list(account, '2026-11-05', '2026-11-05')).map((row) => row.model);
    expect(models).toEqual(expect.arrayContaining(['before-model', 'after-model', 'later-model']));
    expect(refused).toEqual(target.engine === 'postgres' ? ['echo:400,zz\u0000'] : []);
  });

  it('a failed flush keeps its counts for the next one', async () => {
    const errors: unknown[] = [];
    let broken = true;
    const repository = new UsageRepository(first.db);
    const flaky = Object.create(repository) as UsageRepository;
    flaky.add = async (increments) => {
      if (broken) throw new StorageUnavailableError(new Error('connect ECONNREFUSED'));
      return repository.add(increments);
    };
    const recorder = new UsageRecorder(flaky, createMetrics(), 60_000, (error) => errors.push(error));
    recorder.record(account, [{ provider: 'google', model: 'gemini-x', outcome: 'failed', tally: new UsageTally() }], new Date('2026-11-03T00:00:00Z'));
    await recorder.flush();
    expect(errors).toHaveLength(1);
    broken = false;
    recorder.record(account, [{ provider: 'google', model: 'gemini-x', outcome: 'failed', tally: new UsageTally() }], new Date('2026-11-03T23:59:59Z'));
    await recorder.close();
    const [row] = await repository.list(account, '2026-11-03', '2026-11-03');
    expect(row?.failures).toBe(2);
  });

  it('the service secret is generated once and every instance reads the same value', async () => {
    const values = await Promise.all(
      Array.from({ length: 10 }, (_, i) => new SecretRepository((i % 2 ? first : second).db).getOrCreate('test-secret', () => `candidate-${i}`)),
    );
    expect(new Set(values).size).toBe(1);
    expect(await new SecretRepository(first.db).getOrCreate('test-secret', () => 'later')).toBe(values[0]);
  });
});
