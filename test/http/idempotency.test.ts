import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

describe.each(storageTargets)('Idempotency-Key on $engine', (target) => {
  let f: RefineFixture;
  let personaId: string;
  beforeAll(async () => {
    f = await startRefineFixture({ target });
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Idem' } })).json()).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  const createWithKey = (key: string, json: unknown, apiKey?: string) =>
    f.server.request('/v1/personas', { method: 'POST', json, headers: { 'idempotency-key': key }, ...(apiKey ? { key: apiKey } : {}) });
  const countNamed = async (name: string, apiKey?: string) =>
    (await (await f.server.request('/v1/personas', apiKey ? { key: apiKey } : {})).json()).filter((p: { name: string }) => p.name === name).length;

  it('a replay returns the first answer — status, body, Location, ETag — and creates nothing', async () => {
    const first = await createWithKey('create-1', { name: 'Once', attributes: { a: 1 } });
    const second = await createWithKey('create-1', { name: 'Once', attributes: { a: 1 } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(await second.text()).toBe(await first.text());
    for (const header of ['location', 'etag', 'content-type']) expect(second.headers.get(header)).toBe(first.headers.get(header));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await countNamed('Once')).toBe(1);
  });

  it('the same key with a different body → 422, nothing created', async () => {
    await createWithKey('create-2', { name: 'Original' });
    const res = await createWithKey('create-2', { name: 'Different' });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: 422, message: expect.stringMatching(/different request body/) });
    expect(await countNamed('Different')).toBe(0);
  });

  it('keys are scoped per account', async () => {
    const other = await f.server.createAccount(`idem-other-${target.engine}`);
    expect((await createWithKey('shared-key', { name: 'Scoped' })).status).toBe(201);
    const theirs = await createWithKey('shared-key', { name: 'Scoped' }, other);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await countNamed('Scoped')).toBe(1);
    expect(await countNamed('Scoped', other)).toBe(1);
  });

  it('20 concurrent requests with one key create exactly one persona', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => createWithKey('race-1', { name: 'Raced' })));
    const bodies = new Set(await Promise.all(results.map((r) => r.text())));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(bodies.size).toBe(1);
    expect(await countNamed('Raced')).toBe(1);
  });

  it('a validation failure is not an idempotent outcome of a valid request', async () => {
    expect((await createWithKey('create-3', { name: '' })).status).toBe(400);
    expect((await createWithKey('create-3', { name: 'Valid now' })).status).toBe(422);
  });

  const refineWithKey = (key: string, content = 'hello') =>
    f.server.request('/v1/refine', {
      method: 'POST',
      json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content },
      headers: { 'idempotency-key': key },
    });

  it('a refine replay does not call the provider again', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'paid once' });
    const first = await refineWithKey('refine-1');
    const second = await refineWithKey('refine-1');
    expect(await first.json()).toEqual({ response: 'paid once' });
    expect(await second.json()).toEqual({ response: 'paid once' });
    expect(f.fake.requestCount).toBe(1);
  });

  it('a replay that arrives while the first is running waits for it and gets its answer', async () => {
    f.fake.setBehaviour({ mode: 'slow', delayMs: 600, reply: 'worth the wait' });
    const first = refineWithKey('refine-2');
    await f.fake.waitForRequests(1);
    const second = await refineWithKey('refine-2');
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ response: 'worth the wait' });
    expect((await first).status).toBe(200);
    expect(f.fake.requestCount).toBe(1);
  });

  it('a refine the client abandoned is not stored: the retry runs', async () => {
    f.fake.setBehaviour('hang');
    const controller = new AbortController();
    const abandoned = f.server
      .request('/v1/refine', {
        method: 'POST',
        json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'hello' },
        headers: { 'idempotency-key': 'refine-abandoned' },
        signal: controller.signal,
      })
      .catch(() => undefined);
    await f.fake.waitForRequests(1);
    controller.abort();
    await abandoned;
    f.fake.setBehaviour({ mode: 'ok', reply: 'ran again' });
    let retry = await refineWithKey('refine-abandoned');
    // The abandoned attempt may still be settling: a 409 says so, and the next try runs.
    await expect.poll(async () => (retry.status === 409 ? (retry = await refineWithKey('refine-abandoned')) : retry).status, { interval: 100 }).not.toBe(409);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await retry.json()).toEqual({ response: 'ran again' });
  });

  it('a provider failure is not stored: the retry calls the provider again', async () => {
    f.fake.setBehaviour('badRequest');
    expect((await refineWithKey('refine-3')).status).toBe(400);
    f.fake.setBehaviour('serverError');
    expect((await refineWithKey('refine-4')).status).toBe(502);
    const calls = f.fake.requestCount;
    f.fake.setBehaviour({ mode: 'ok', reply: 'recovered' });
    const retry = await refineWithKey('refine-4');
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ response: 'recovered' });
    expect(f.fake.requestCount).toBe(calls + 1);
    // A 4xx from the provider settles the request: the replay repeats it without a call.
    const replayed = await refineWithKey('refine-3');
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('x-error-source')).toBe('provider');
    expect(f.fake.requestCount).toBe(calls + 1);
  });
});
