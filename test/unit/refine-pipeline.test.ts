/**
 * The fast tier: the refine pipeline and its fallback chain in process, on a clock the test
 * drives. The provider is the fake speaking the real wire formats on loopback; the time is
 * not waited for, so a provider that never answers is a 504 the moment the clock passes the
 * deadline, and a test of it fails in milliseconds, never by hanging until Vitest's timeout.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnswerCache } from '../../src/cache/answer-cache.js';
import { MemoryAnswerStore } from '../../src/cache/answer-store.js';
import type { Clock } from '../../src/clock.js';
import { DomainError } from '../../src/errors.js';
import { createMetrics } from '../../src/metrics.js';
import { PersonaHistory } from '../../src/personas/persona-history.js';
import { PersonaService } from '../../src/personas/persona-service.js';
import { createProviderRegistry } from '../../src/providers/index.js';
import { CompiledPersonas } from '../../src/refine/compiled-personas.js';
import { Judge } from '../../src/scoring/judge.js';
import { RefineService } from '../../src/refine/refine-service.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { PersonaHistoryRepository } from '../../src/storage/persona-history-repository.js';
import { PersonaRepository } from '../../src/storage/persona-repository.js';
import { SecretRepository, ServiceSecret } from '../../src/storage/secret-repository.js';
import { UsageRepository } from '../../src/storage/usage-repository.js';
import { UsageRecorder } from '../../src/usage/usage-recorder.js';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { sqliteTarget } from '../helpers/storage-targets.js';

/** Time that moves only when the test says so. */
class ManualClock implements Clock {
  private time = Date.parse('2026-11-25T12:00:00Z');
  private timers: { at: number; fn: () => void; cancelled: boolean }[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + Math.max(0, ms), fn, cancelled: false };
    this.timers.push(timer);
    return () => (timer.cancelled = true);
  }

  /** Moves time on, firing each timer that falls due, in order. */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.time = due.at;
      due.cancelled = true;
      due.fn();
    }
    this.time = until;
  }
}

const TIMEOUT_MS = 60_000;
const KEY = 'fake-provider-key-Hq2Zx9Lm4Vb8Nc1Pw7';

describe('the refine pipeline on a driven clock', () => {
  let storage: Storage;
  let remove: () => Promise<void>;
  let fake: FakeProviderServer;
  let clock: ManualClock;
  let refine: RefineService;
  let personaId: string;
  const accountId = 'acct-pipeline';

  beforeAll(async () => {
    const database = await sqliteTarget.create();
    remove = database.remove;
    storage = await openStorage(database.config);
    await storage.db.insertInto('accounts').values({ id: accountId, name: 'pipeline', created_at: new Date().toISOString() }).execute();
    fake = await startFakeProviderServer();
    clock = new ManualClock();
    const personas = new PersonaService(new PersonaRepository(storage.db));
    const compiled = new CompiledPersonas(personas, new PersonaHistory(new PersonaHistoryRepository(storage.db), personas));
    const metrics = createMetrics();
    const registry = createProviderRegistry(
      { baseUrls: { openai: fake.baseUrl('openai'), anthropic: fake.baseUrl('anthropic') }, models: {} },
      { clock },
    );
    const usage = new UsageRecorder(new UsageRepository(storage.db), metrics, 60_000, () => {});
    const cache = new AnswerCache(new MemoryAnswerStore(1024 * 1024), new ServiceSecret(new SecretRepository(storage.db), 'pipeline-test'), 60, () => {});
    refine = new RefineService(compiled, registry, TIMEOUT_MS, metrics, usage, cache, new Judge(registry, usage, metrics, undefined, clock), undefined, clock);
    personaId = (await personas.create({ accountId, keyId: 'key-1', requestId: 'req-1' }, { name: 'Pipeline', attributes: { tone: 'plain' } })).id;
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
    await storage.close();
    await remove();
  });

  const request = (extra: Record<string, unknown> = {}) => ({
    provider: 'openai', providerApiKey: KEY, personaId, content: 'The export finished with 3 warnings.', ...extra,
  });
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (error: unknown) => error as DomainError);

  it('a provider that never answers is a 504 as soon as the clock passes PROVIDER_TIMEOUT_MS, not after waiting it', async () => {
    fake.setBehaviour('hang');
    const started = Date.now();
    const refined = failure(refine.refine(accountId, request(), new AbortController().signal));
    await fake.waitForRequests(1);
    clock.advance(TIMEOUT_MS - 1);
    // sleeps because a timer wrongly due a millisecond early would fire meanwhile; the advance(1) below is what must end it
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advance(1);
    const error = await refined;
    expect(error.code).toBe('provider_timeout');
    expect(error.message).toBe('provider "openai" did not answer within 60000 ms');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a silent primary gets half the time, then its fallback answers within the same deadline', async () => {
    fake.enqueue('hang', { mode: 'ok', reply: 'From the fallback: 3 warnings.' });
    const refined = refine.refine(accountId, request({ fallbacks: [{ provider: 'anthropic', providerApiKey: KEY, model: 'claude-test' }] }), new AbortController().signal);
    await fake.waitForRequests(1);
    clock.advance(TIMEOUT_MS / 2);
    const result = await refined;
    expect(result.response).toBe('From the fallback: 3 warnings.');
    expect([result.provider, result.model]).toEqual(['anthropic', 'claude-test']);
    expect(result.usage.providerCalls).toBe(2);
    expect(fake.requests.map((r) => r.provider)).toEqual(['openai', 'anthropic']);
  });

  it("waits as long as a 429's Retry-After asks, on the clock, then retries and answers", async () => {
    fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 20 }, { mode: 'ok', reply: 'After the wait: 3 warnings.' });
    const refined = refine.refine(accountId, request(), new AbortController().signal);
    await fake.waitForRequests(1);
    // sleeps because it shows no retry comes before the clock moves: an absence has nothing to poll
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.requestCount).toBe(1);
    clock.advance(20_000);
    expect((await refined).response).toBe('After the wait: 3 warnings.');
    expect(fake.requestCount).toBe(2);
  });

  it('a Retry-After past the deadline is answered at once with the 429, not waited for', async () => {
    fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 120 });
    const error = await failure(refine.refine(accountId, request(), new AbortController().signal));
    expect(error.code).toBe('provider_rate_limited');
    expect(fake.requestCount).toBe(1);
  });

  it('a stream that stalls after its first text ends with a 504 from its pieces at the deadline', async () => {
    fake.setBehaviour({ mode: 'streamStall', reply: 'One two three four five six seven eight nine ten.', failAfterPieces: 3, pieceChars: 8 });
    const run = await refine.refineStream(accountId, request(), new AbortController().signal);
    const reading = (async () => {
      for (let next = await run.pieces.next(); !next.done; next = await run.pieces.next());
    })();
    // sleeps because the stream must have stalled (its pieces read) before the clock passes the deadline, which nothing shows
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advance(TIMEOUT_MS);
    const error = await failure(reading);
    expect(error.code).toBe('provider_timeout');
  });

  it('streamed and collected, the same answer gives the same result (one run, observed two ways)', async () => {
    const reply = 'Here is the rewritten text:\n\nThe export finished with 3 warnings.\n\nNothing else changed.';
    fake.enqueue({ mode: 'ok', reply });
    const collected = await refine.refine(accountId, request(), new AbortController().signal);
    fake.enqueue({ mode: 'ok', reply, pieceChars: 5 });
    const run = await refine.refineStream(accountId, request(), new AbortController().signal);
    let shown = '';
    let next = await run.pieces.next();
    for (; !next.done; next = await run.pieces.next()) shown += next.value;
    expect(shown).toBe(collected.response);
    expect(next.value.response).toBe(collected.response);
    expect(collected.response).toBe('The export finished with 3 warnings.\n\nNothing else changed.');
  });
});
