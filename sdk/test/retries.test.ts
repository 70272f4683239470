import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine, type RetryEvent } from '../src/index.js';
import { parseRetryAfter, retryDelayMs } from '../src/retry-policy.js';
import { type Script, type ScriptedServer, answer, startScriptedServer } from './helpers/scripted-server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const errorBody = (status: number) => ({ error: status, message: `scripted ${status}` });
const FORWARD: Script = { forward: true };

describe('retries through a scripted proxy in front of a real server', () => {
  let server: TestServer;
  let proxy: ScriptedServer | undefined;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  async function clientVia(script: (index: number) => Script, options: { maxRetries?: number; timeoutMs?: number; onRetry?: (e: RetryEvent) => void } = {}) {
    proxy = await startScriptedServer((_request, index) => script(index), server.url);
    return new PersonaRefine({ apiKey: server.key, baseUrl: proxy.url, ...options });
  }

  it('a 503 after the server already created the persona is retried with the same Idempotency-Key: exactly one persona', async () => {
    const lostAnswer: Script = { forward: true, thenAnswer: { status: 503, body: errorBody(503), headers: { 'retry-after': '0' } } };
    const client = await clientVia((i) => (i === 0 ? lostAnswer : FORWARD));
    const name = `Once ${Date.now()}`;
    const created = await client.personas.create({ name });

    const [first, second] = proxy!.seen;
    expect(proxy!.seen).toHaveLength(2);
    expect(first!.headers['idempotency-key']).toMatch(UUID);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.body).toBe(first!.body);
    const listed = (await new PersonaRefine({ apiKey: server.key, baseUrl: server.url }).personas.list()).filter((p) => p.name === name);
    expect(listed).toEqual([created]);
  });

  it('sends a fresh Idempotency-Key with every POST call, on its first attempt; or the one given', async () => {
    const client = await clientVia(() => FORWARD);
    await client.personas.create({ name: 'K1' });
    await client.personas.create({ name: 'K2' });
    await client.personas.create({ name: 'K3' }, { idempotencyKey: 'my-own-key-42' });
    const keys = proxy!.seen.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toMatch(UUID);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('my-own-key-42');
  });

  it('honours Retry-After: 1 — the retry comes at least a second later', async () => {
    const client = await clientVia((i) => (i === 0 ? answer(429, errorBody(429), { 'retry-after': '1' }) : FORWARD));
    await client.personas.list();
    const [first, second] = proxy!.seen;
    // Timers may fire a millisecond early against Date.now(); the wait asked for is 1000 ms.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(995);
  });

  it.each([429, 502, 503, 504])('retries %i up to maxRetries, then throws the last error', async (status) => {
    const retries: RetryEvent[] = [];
    const client = await clientVia(() => answer(status, errorBody(status), { 'retry-after': '0' }), { onRetry: (e) => retries.push(e) });
    await expect(client.personas.list()).rejects.toMatchObject({ kind: 'http', status, retryAfter: 0, message: `scripted ${status}` });
    expect(proxy!.seen).toHaveLength(3);
    expect(retries.map((e) => [e.retry, e.method, e.path, e.error.status])).toEqual([
      [1, 'GET', '/personas', status],
      [2, 'GET', '/personas', status],
    ]);
  });

  it('a 504 from a gateway in front of the service is retried: the POST succeeds on its second attempt, with the same Idempotency-Key', async () => {
    const retries: RetryEvent[] = [];
    const client = await clientVia((i) => (i === 0 ? answer(504, errorBody(504)) : FORWARD), { onRetry: (e) => retries.push(e) });
    await expect(client.personas.create({ name: 'After 504' })).resolves.toMatchObject({ name: 'After 504' });

    const [first, second] = proxy!.seen;
    expect(proxy!.seen).toHaveLength(2);
    expect(first!.headers['idempotency-key']).toMatch(UUID);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(retries.map((e) => [e.retry, e.method, e.error.status])).toEqual([[1, 'POST', 504]]);
  });

  it('maxRetries: 0 makes exactly one attempt', async () => {
    const client = await clientVia(() => answer(503, errorBody(503)), { maxRetries: 0 });
    await expect(client.personas.list()).rejects.toMatchObject({ status: 503 });
    expect(proxy!.seen).toHaveLength(1);
  });

  it.each([400, 401, 404, 409, 500])('does not retry %i on a GET', async (status) => {
    const client = await clientVia(() => answer(status, errorBody(status)));
    await expect(client.personas.list()).rejects.toMatchObject({ status });
    expect(proxy!.seen).toHaveLength(1);
  });

  it('retries 409 on a POST: the first attempt with that key is still running', async () => {
    const client = await clientVia((i) => (i === 0 ? answer(409, errorBody(409)) : FORWARD));
    await expect(client.personas.create({ name: 'After 409' })).resolves.toMatchObject({ name: 'After 409' });
    expect(proxy!.seen).toHaveLength(2);
  });

  it('retries GET without an Idempotency-Key, PATCH and DELETE with one (the same on both attempts)', async () => {
    const persona = await new PersonaRefine({ apiKey: server.key, baseUrl: server.url }).personas.create({ name: 'Retry me' });
    const client = await clientVia((i) => (i % 2 === 0 ? answer(502, errorBody(502), { 'retry-after': '0' }) : FORWARD));
    await client.personas.get(persona.id);
    await client.personas.update(persona.id, { name: 'Retried' });
    await client.personas.delete(persona.id);
    expect(proxy!.seen.map((r) => r.method)).toEqual(['GET', 'GET', 'PATCH', 'PATCH', 'DELETE', 'DELETE']);
    const keys = proxy!.seen.map((r) => r.headers['idempotency-key']);
    expect(keys.slice(0, 2)).toEqual([undefined, undefined]);
    expect(keys[2]).toMatch(UUID);
    expect(keys[3]).toBe(keys[2]);
    expect(keys[4]).toMatch(UUID);
    expect(keys[5]).toBe(keys[4]);
    expect(keys[4]).not.toBe(keys[2]);
  });

  it('retries a dropped connection, with the same Idempotency-Key', async () => {
    const client = await clientVia((i) => (i === 0 ? { drop: true } : FORWARD));
    await expect(client.personas.create({ name: 'After a reset' })).resolves.toMatchObject({ name: 'After a reset' });
    const [first, second] = proxy!.seen;
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
  });

  it('gives up at once when Retry-After is past the time left, with the real error rather than a timeout', async () => {
    const client = await clientVia(() => answer(429, errorBody(429), { 'retry-after': '30' }), { timeoutMs: 5_000 });
    const started = Date.now();
    await expect(client.personas.list()).rejects.toMatchObject({ kind: 'http', status: 429, retryAfter: 30 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(proxy!.seen).toHaveLength(1);
  });
});

describe('retry policy', () => {
  it('backs off exponentially with jitter between half and all of the step, capped at 8 s', () => {
    expect(retryDelayMs(0, undefined, () => 0)).toBe(250);
    expect(retryDelayMs(0, undefined, () => 1)).toBe(500);
    expect(retryDelayMs(1, undefined, () => 0.5)).toBe(750);
    expect(retryDelayMs(10, undefined, () => 1)).toBe(8_000);
  });

  it('never waits less than Retry-After', () => {
    expect(retryDelayMs(0, 3, () => 1)).toBe(3_000);
    expect(retryDelayMs(5, 1, () => 1)).toBe(8_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfter('2', now)).toBe(2);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
