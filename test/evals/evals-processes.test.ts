/**
 * Evaluations across real server processes
 * (docs/evaluations.md, "Restarts and many instances"): a run cut short by a restart is interrupted on the next
 * start with what finished kept, and two instances on one PostgreSQL answer
 * for each other's runs: GET, list, compare, events joined midway, cancel.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { parseEventStream, readUntil } from '../helpers/event-stream.js';
import { callerKey, refineEnv } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { createTestDatabase, postgresAvailable } from '../helpers/services.js';

const BOOTSTRAP = 'prk_evals_processes_key_0123456789abcdefghij';
const KEY = callerKey('openai');
const slow = { mode: 'slow' as const, delayMs: 500 };

const call = async (server: ServerProcess, path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(server.url + path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${BOOTSTRAP}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
/** The body as JSON; one that is not names its status and text (an empty body was seen once under load, cause unknown). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (response: Promise<Response>): Promise<any> => {
  const answer = await response;
  const text = await answer.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${answer.url} answered ${answer.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
};

async function personaWithSamples(server: ServerProcess, count: number): Promise<string> {
  const { id } = await json(call(server, '/v1/personas', { method: 'POST', body: { name: 'Across processes' } }));
  const samples = Array.from({ length: count }, (_, i) => ({ content: `Sample number ${i + 1}.` }));
  expect((await call(server, `/v1/personas/${id}/samples`, { method: 'PUT', body: { samples } })).status).toBe(200);
  return id as string;
}

async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > deadline) return value;
    // sleeps because this is the interval of a poll that returns what it found (expect.poll returns nothing)
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a run cut short by a restart', () => {
  let fake: FakeProviderServer;
  let dir: string;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    fake = await startFakeProviderServer({ behaviour: slow });
    dir = mkdtempSync(join(tmpdir(), 'persona-refine-evals-'));
    env = { ...refineEnv(fake), DATABASE_URL: `sqlite:${join(dir, 'personas.sqlite')}`, BOOTSTRAP_API_KEY: BOOTSTRAP, LOG_FORMAT: 'json' };
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const startRun = async (server: ServerProcess, id: string) => {
    const started = await call(server, `/v1/personas/${id}/evals`, { method: 'POST', body: { provider: 'openai', providerApiKey: KEY, concurrency: 1 } });
    expect(started.status).toBe(202);
    const run = (await started.json()) as { id: string };
    await until(() => json(call(server, `/v1/personas/${id}/evals/${run.id}`)), (r) => r.progress.done >= 1, 10_000);
    return run.id;
  };

  it('is interrupted on the next start, what finished kept: after kill -9 (its heartbeat goes stale) and after SIGTERM (at once)', async () => {
    const first = await startServerProcess(env, 20_000);
    servers.push(first);
    const id = await personaWithSamples(first, 6);
    const killed = await startRun(first, id);
    await first.stop('SIGKILL');

    const second = await startServerProcess(env, 20_000);
    servers.push(second);
    const afterKill = await until(() => json(call(second, `/v1/personas/${id}/evals/${killed}`)), (r) => r.status === 'interrupted', 20_000);
    expect(afterKill.status).toBe('interrupted');
    expect(afterKill.error).toBe('the instance running this evaluation stopped before it finished; what finished is kept');
    expect(afterKill.results.length).toBeGreaterThanOrEqual(1);
    expect(afterKill.results.length).toBeLessThan(6);
    expect(afterKill.progress.done).toBe(afterKill.results.length);
    expect(afterKill.finishedAt).not.toBeNull();

    const stopped = await startRun(second, id);
    await second.stop('SIGTERM');
    const third = await startServerProcess(env, 20_000);
    servers.push(third);
    const afterStop = await json(call(third, `/v1/personas/${id}/evals/${stopped}`));
    expect(afterStop.status).toBe('interrupted');
    expect(afterStop.results.length).toBeGreaterThanOrEqual(1);
    const events = parseEventStream(await (await call(third, `/v1/personas/${id}/evals/${stopped}/events`)).text());
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { status: 'interrupted' } });
    for (const server of [first, second, third]) expect(secretFragmentsIn(server.output(), KEY)).toEqual([]);
  });
});

describe.skipIf(!postgresAvailable)('two instances, one PostgreSQL', () => {
  let fake: FakeProviderServer;
  let database: { url: string; drop: () => Promise<void> };
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    fake = await startFakeProviderServer({ behaviour: slow });
    database = await createTestDatabase();
    const env = { ...refineEnv(fake), DATABASE_URL: database.url, BOOTSTRAP_API_KEY: BOOTSTRAP, LOG_FORMAT: 'json' };
    [a, b] = await Promise.all([startServerProcess(env, 20_000), startServerProcess(env, 20_000)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await fake?.close();
    await database?.drop();
  });

  it('a run on A: B answers its GET, list and events joined midway; compare on B; a cancel on B stops it on A', async () => {
    const id = await personaWithSamples(a, 4);
    const started = await json(call(a, `/v1/personas/${id}/evals`, { method: 'POST', body: { provider: 'openai', providerApiKey: KEY, concurrency: 1 } }));
    await until(() => json(call(b, `/v1/personas/${id}/evals/${started.id}`)), (r) => r.progress.done >= 1, 10_000);
    const stream = await call(b, `/v1/personas/${id}/evals/${started.id}/events`);
    expect(stream.status).toBe(200);
    const events = parseEventStream(await readUntil(stream, (t) => t.includes('event: done') || t.includes('event: error')));
    expect(events.filter((e) => e.event === 'result')).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed', summary: { passRate: 1 } } });
    expect((await json(call(b, `/v1/personas/${id}/evals`))).map((r: { id: string }) => r.id)).toEqual([started.id]);

    const second = await json(call(b, `/v1/personas/${id}/evals`, { method: 'POST', body: { provider: 'openai', providerApiKey: KEY, concurrency: 1 } }));
    await until(() => json(call(a, `/v1/personas/${id}/evals/${second.id}`)), (r) => r.progress.done >= 1, 10_000);
    const cancelled = await call(a, `/v1/personas/${id}/evals/${second.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    const requestsAtCancel = fake.requestCount;
    // B learns of it at its next heartbeat (2 s) and stops calling the provider.
    // sleeps because it shows B makes no more calls past its heartbeat: an absence has nothing to poll
    await new Promise((r) => setTimeout(r, 3_500));
    expect(fake.requestCount - requestsAtCancel).toBeLessThanOrEqual(1);
    const kept = await json(call(b, `/v1/personas/${id}/evals/${second.id}`));
    expect(kept.status).toBe('cancelled');
    expect(kept.results.length).toBeLessThan(4);

    const compared = await json(call(b, `/v1/personas/${id}/evals/compare?base=${started.id}&head=${second.id}`));
    expect(compared.samples).toHaveLength(4);
    expect(compared.regressions).toEqual([]);
    expect(secretFragmentsIn(a.output() + b.output(), KEY)).toEqual([]);
  });
});
