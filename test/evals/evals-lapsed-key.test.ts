/**
 * A run spends with the authority of the key that started it (docs/evaluations.md, "Runs"),
 * on both engines: revoked through another instance, or expired, that key's run ends as
 * cancelled with the reason within 5 s, and the provider gets no request of it after that.
 * A run of another account, going on meanwhile, is the clock: the lapsed run would have
 * sent several requests in the time that one sends three.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, refineEnv, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const KEY = callerKey('openai');
const SAMPLES = 100;

describe.each(storageTargets)('a run whose key lapses, on $engine', (target) => {
  let fixture: RefineFixture;
  let other: TestServer;
  let controlKey: string;
  let controlPersona: string;

  const personaWithSamples = async (marker: string, key?: string) => {
    const request = (path: string, init: Parameters<TestServer['request']>[1]) => fixture.server.request(path, init);
    const id = (await (await request('/v1/personas', { method: 'POST', key, json: { name: marker } })).json()).id as string;
    const samples = Array.from({ length: SAMPLES }, (_, i) => ({ content: `Say hi to ${marker} ${i}.` }));
    expect((await request(`/v1/personas/${id}/samples`, { method: 'PUT', key, json: { samples } })).status).toBe(200);
    return id;
  };
  const startRun = async (personaId: string, key: string | undefined, concurrency: number) => {
    const started = await fixture.server.request(`/v1/personas/${personaId}/evals`, { method: 'POST', key, json: { provider: 'openai', providerApiKey: KEY, concurrency } });
    expect(started.status).toBe(202);
    return (await started.json()).id as string;
  };
  const runOf = async (personaId: string, evalId: string) => (await fixture.server.request(`/v1/personas/${personaId}/evals/${evalId}`)).json();
  const requestsFor = (marker: string) => fixture.fake.requests.filter((request) => request.userText.includes(`hi to ${marker} `)).length;

  /** Starts a run with `key`, lets it answer a sample, lapses the key, and checks the run stops for good. */
  async function expectStopped(marker: string, key: string, lapse: () => Promise<void>, reason: string): Promise<void> {
    const personaId = await personaWithSamples(marker);
    const evalId = await startRun(personaId, key, 2);
    await expect.poll(async () => (await runOf(personaId, evalId)).progress.done, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
    const control = await startRun(controlPersona, controlKey, 1);

    await lapse();
    await expect.poll(async () => (await runOf(personaId, evalId)).status, { timeout: 5_000, interval: 100 }).toBe('cancelled');
    const sent = requestsFor(marker);
    const controlSent = requestsFor(`CONTROL-${marker}`);
    await expect.poll(() => requestsFor(`CONTROL-${marker}`), { timeout: 10_000 }).toBeGreaterThanOrEqual(controlSent + 3);
    expect(requestsFor(marker)).toBe(sent);

    const run = await runOf(personaId, evalId);
    expect(run).toMatchObject({ status: 'cancelled', error: reason });
    expect(run.results.length).toBeLessThan(SAMPLES);
    const events = parseEventStream(await (await fixture.server.request(`/v1/personas/${personaId}/evals/${evalId}/events`)).text());
    expect(events.at(-1)).toEqual({ event: 'error', data: { status: 'cancelled', message: reason, summary: run.summary } });
    expect((await other.request(`/v1/personas/${controlPersona}/evals/${control}/cancel`, { method: 'POST', key: controlKey })).status).toBe(200);
  }

  beforeAll(async () => {
    fixture = await startRefineFixture({ target });
    // Another instance on the same database, as behind a load balancer: the revocation goes through it.
    other = await startTestServer({ shareDatabaseWith: fixture.server, env: refineEnv(fixture.fake) });
    fixture.fake.setBehaviour({ mode: 'slow', delayMs: 200 });
    controlKey = await fixture.server.createAccount(`control-${target.engine}`);
  });
  afterAll(async () => {
    await other?.close();
    await fixture?.close();
  });

  const createKey = async (body: Record<string, unknown>) => {
    const response = await fixture.server.request('/v1/keys', { method: 'POST', json: { scopes: ['evals'], ...body } });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; secret: string };
  };

  it('revoked on another instance: cancelled within 5 s, "the key that started this run was revoked", no provider request after', async () => {
    controlPersona = await personaWithSamples('CONTROL-REVOKED', controlKey);
    const key = await createKey({ name: 'evaluator' });
    await expectStopped(
      'REVOKED',
      key.secret,
      async () => expect((await other.request(`/v1/keys/${key.id}`, { method: 'DELETE' })).status).toBe(204),
      'the key that started this run was revoked; what finished is kept',
    );
  });

  it('expired mid-run: cancelled within 5 s of its expiry, "the key that started this run expired", no provider request after', async () => {
    controlPersona = await personaWithSamples('CONTROL-EXPIRED', controlKey);
    const expiresAt = Date.now() + 3_000;
    const key = await createKey({ name: 'short-lived evaluator', expiresAt: new Date(expiresAt).toISOString() });
    await expectStopped(
      'EXPIRED',
      key.secret,
      async () => expect.poll(() => Date.now() >= expiresAt, { timeout: 5_000 }).toBe(true),
      'the key that started this run expired; what finished is kept',
    );
  });
});
