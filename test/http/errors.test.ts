import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/test-server.js';

async function expectError(res: TestResponse, status: number, message?: string | RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('x-request-id')).toBeTruthy();
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(status);
  expect(typeof body.message).toBe('string');
  if (typeof message === 'string') expect(body.message).toBe(message);
  else if (message) expect(body.message).toMatch(message);
}

describe.each(storageTargets)('error model and hostile input on $engine', (target) => {
  let server: TestServer;
  let existingId: string;
  let snapshot: string;

  const personasNow = async () => (await server.request('/v1/personas')).text();

  beforeAll(async () => {
    server = await startTestServer({ target });
    existingId = (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Keeper', attributes: { tone: 'calm' } } })).json()).id;
    snapshot = await personasNow();
  });
  afterAll(() => server.close());

  const post = (body: string, contentType = 'application/json') =>
    server.request('/v1/personas', { method: 'POST', body, headers: { 'content-type': contentType } });
  const patch = (body: string) =>
    server.request(`/v1/personas/${existingId}`, { method: 'PATCH', body, headers: { 'content-type': 'application/json' } });

  const badBodies: [string, string, number, string | RegExp][] = [
    ['an unknown top-level field', '{"name":"x","colour":"red"}', 400, 'unknown field "colour" in request body'],
    ['a missing name', '{"attributes":{}}', 400, 'name is required'],
    ['a name of the wrong type', '{"name":123}', 400, 'name must be a string'],
    ['an empty name', '{"name":""}', 400, 'name must be a non-empty string of at most 200 characters'],
    ['a blank name', '{"name":"   \\t "}', 400, 'name must be a non-empty string of at most 200 characters'],
    ['a 201-character name', JSON.stringify({ name: 'n'.repeat(201) }), 400, 'name must be a non-empty string of at most 200 characters'],
    ['attributes as an array', '{"name":"x","attributes":[1,2]}', 400, 'attributes must be an object'],
    ['attributes as null', '{"name":"x","attributes":null}', 400, 'attributes must be an object'],
    ['attributes as a string', '{"name":"x","attributes":"warm"}', 400, 'attributes must be an object'],
    ['attributes over 64 KiB', JSON.stringify({ name: 'x', attributes: { blob: 'a'.repeat(65 * 1024) } }), 400, /at most 64 KiB/],
    ['attributes nested too deep', `{"name":"x","attributes":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`, 400, /nested more than/],
    ['attributes nested 150,000 levels deep', `{"name":"x","attributes":{"a":${'['.repeat(150_000)}${']'.repeat(150_000)}}}`, 400, /nested more than|not valid JSON/],
    ['invalid JSON', '{"name": "x",', 400, 'request body is not valid JSON'],
    ['a JSON array body', '[{"name":"x"}]', 400, 'request body must be a JSON object'],
    ['a JSON string body', '"x"', 400, 'request body must be a JSON object'],
    ['an empty body', '', 400, /empty/],
    ['a __proto__ key', '{"name":"x","attributes":{"__proto__":{"admin":true}}}', 400, /__proto__/],
    ['a constructor.prototype key', '{"name":"x","attributes":{"constructor":{"prototype":{"admin":true}}}}', 400, /__proto__|constructor/],
  ];

  it.each(badBodies)('POST with %s → %i, store unchanged', async (_label, body, status, message) => {
    await expectError(await post(body), status, message);
    expect(await personasNow()).toBe(snapshot);
  });

  it.each(badBodies.filter(([label]) => !label.includes('missing name')))('PATCH with %s → %i, store unchanged', async (_l, body, status) => {
    expect((await patch(body)).status).toBe(status);
    expect(await personasNow()).toBe(snapshot);
  });

  it('PATCH with neither name nor attributes → 400', async () => {
    await expectError(await patch('{}'), 400, 'request body must contain at least one field');
    expect(await personasNow()).toBe(snapshot);
  });

  it('a 2 MiB body → 413, store unchanged', async () => {
    await expectError(await post(JSON.stringify({ name: 'x', attributes: { blob: 'a'.repeat(2 * 1024 * 1024) } })), 413, /at most 1048576 bytes/);
    expect(await personasNow()).toBe(snapshot);
  });

  it('text/plain and form bodies → 415, store unchanged', async () => {
    await expectError(await post('{"name":"x"}', 'text/plain'), 415, 'Content-Type must be application/json');
    await expectError(await post('name=x', 'application/x-www-form-urlencoded'), 415);
    expect(await personasNow()).toBe(snapshot);
  });

  it('a bodiless DELETE is accepted whatever its Content-Type, even with Content-Length: 0', async () => {
    const { id } = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Bodiless' } })).json();
    const res = await server.request(`/v1/personas/${id}`, { method: 'DELETE', body: '', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(204);
    snapshot = await personasNow();
  });

  it('requests the HTTP parser rejects get the error shape too: malformed → 400, huge headers → 431', async () => {
    const { createConnection } = await import('node:net');
    const raw = (request: string) =>
      new Promise<string>((resolve) => {
        const { hostname, port } = new URL(server.url);
        const socket = createConnection({ host: hostname, port: Number(port) }, () => socket.write(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += String(chunk)));
        socket.on('close', () => resolve(answer));
        socket.on('error', () => resolve(answer));
      });
    const malformed = await raw('GET /v1/personas HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(malformed).toMatch(/x-request-id: [0-9a-f-]{36}/i);
    expect(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4))).toEqual({ error: 400, message: 'the request is not valid HTTP' });
    const huge = await raw(`GET /v1/personas HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4))).toEqual({ error: 431, message: 'request headers are too large' });
  });

  it('unknown route → 404 with the error body', async () => {
    await expectError(await server.request('/v1/nope'), 404, 'no route for GET /v1/nope');
    await expectError(await server.request('/nope', { key: null }), 404);
  });

  it('known path, wrong method → 405 with Allow', async () => {
    const put = await server.request('/v1/personas', { method: 'PUT', json: {} });
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    await expectError(put, 405, /PUT is not allowed/);
    const post = await server.request(`/v1/personas/${existingId}`, { method: 'POST', json: {} });
    expect(post.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
    await expectError(post, 405);
  });

  it('unknown or foreign-looking ids → 404, including path traversal', async () => {
    for (const id of ['01a20097-9207-7000-9c41-72893e6c0112', 'not-an-id', '..%2F..%2Fetc%2Fpasswd', 'x'.repeat(400)]) {
      await expectError(await server.request(`/v1/personas/${id}`), 404);
    }
  });

  it('a NUL anywhere in the URL → 400 on both engines (PostgreSQL cannot hold one)', async () => {
    await expectError(await server.request('/v1/personas/%00'), 400, 'the URL must not contain the NUL character (%00)');
  });

  it('a malformed percent-encoding in the path → 400 with the usual headers and body', async () => {
    const res = await server.request('/v1/personas/%ZZ');
    await expectError(res, 400, 'the URL is not validly percent-encoded');
    expect(res.headers.get('x-service-version')).toBeTruthy();
  });

  it('a bad query parameter → 400 naming it', async () => {
    await expectError(await server.request('/v1/personas?limit=0'), 400, /limit/);
    await expectError(await server.request('/v1/personas?limit=abc'), 400, /limit/);
    await expectError(await server.request('/v1/personas?sort=name'), 400, /unknown field "sort"/);
  });

  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const sane = await server.request('/v1/personas', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(sane.headers.get('x-request-id')).toBe('trace-abc.123');
    const insane = await server.request('/v1/personas', { headers: { 'x-request-id': 'a b'.repeat(100) } });
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.logs.join('')).toContain('"reqId":"trace-abc.123"');
  });

  it('every log line written while serving a request carries its request id', async () => {
    const before = server.logs.length;
    await server.request('/v1/personas', { headers: { 'x-request-id': 'log-check-1' } });
    const lines = server.logs.slice(before).map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.reqId).toBe('log-check-1');
  });
});
