/**
 * What a newcomer runs into in the first hour, answered helpfully: the server's root, an
 * unquoted If-Match, a persona that does not exist or an id that is none on any route, and a
 * body with the wrong field names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('the first hour', () => {
  let server: TestServer;
  let personaId: string;

  beforeAll(async () => {
    server = await startTestServer();
    const created = await server.request('/v1/personas', { method: 'POST', json: { name: 'Support', attributes: {} } });
    personaId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends a browser at / to the studio, and tells a program where everything is', async () => {
    const browser = await fetch(`${server.url}/`, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/studio/');
    const program = await fetch(`${server.url}/`);
    expect(program.status).toBe(200);
    expect(program.headers.get('vary')).toMatch(/accept/i);
    expect(await program.json()).toEqual({ service: 'persona-refine', studio: '/studio/', docs: '/docs', openapi: '/v1/openapi.json', health: '/healthz' });
  });

  it('answers an unquoted If-Match with a 400 that says how to quote it, and changes nothing', async () => {
    const res = await server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { name: 'Renamed' }, headers: { 'if-match': '1' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 400, message: 'If-Match: 1 is not an entity tag; quote it as the ETag header does: If-Match: "1"' });
    const garbage = await server.request(`/v1/personas/${personaId}`, { method: 'DELETE', headers: { 'if-match': 'version-one' } });
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).message).toBe('If-Match must list entity tags in quotes, as the ETag header gives them (If-Match: "3"), or be *');
    expect((await (await server.request(`/v1/personas/${personaId}`)).json()).name).toBe('Support');
    // The quoted forms keep working: a match, a weak tag (never matches), a list, *.
    expect((await server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { name: 'Support' }, headers: { 'if-match': 'W/"1", "1"' } })).status).toBe(200);
    expect((await server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { name: 'Support' }, headers: { 'if-match': 'W/"2"' } })).status).toBe(412);
    expect((await server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { name: 'Support' }, headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('names the persona id in the 404 of every route that takes one', async () => {
    const missing = '01a21392-8f31-7000-859d-fda730404f5a';
    const notOurs = 'b1a2c3d4-0000-4000-8000-000000000000';
    const message = `persona "${missing}" not found`;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/v1/personas/${missing}`],
      ['PATCH', `/v1/personas/${missing}`, { name: 'x' }],
      ['DELETE', `/v1/personas/${missing}`],
      ['GET', `/v1/personas/${missing}/versions`],
      ['GET', `/v1/personas/${missing}/versions/1`],
      ['POST', `/v1/personas/${missing}/versions/1/restore`],
      ['GET', `/v1/personas/${missing}/labels`],
      ['PUT', `/v1/personas/${missing}/labels/production`, { version: 1 }],
      ['DELETE', `/v1/personas/${missing}/labels/production`],
      ['POST', '/v1/refine', { provider: 'rules', personaId: missing, content: 'hi' }],
      ['POST', '/v1/refine', { provider: 'rules', personaId: missing, content: 'hi', stream: true }],
      ['POST', '/v1/check', { personaId: missing, content: 'hi' }],
    ];
    const answers = [];
    for (const [method, path, json] of calls) {
      const res = await server.request(path, { method, ...(json === undefined ? {} : { json }) });
      answers.push(`${method} ${path} ${res.status} ${((await res.json()) as { message: string }).message}`);
    }
    expect(answers).toEqual(calls.map(([method, path]) => `${method} ${path} 404 ${message}`));

    // An id that cannot be one of ours (not a UUIDv7) says so, on any route (every route: test/http/persona-ids.test.ts).
    const malformed = [];
    for (const [method, path, json] of calls) {
      const body = json === undefined ? {} : { json: JSON.parse(JSON.stringify(json).replace(missing, notOurs)) };
      const res = await server.request(path.replace(missing, notOurs), { method, ...body });
      malformed.push(`${method} ${path} ${res.status} ${((await res.json()) as { message: string }).message}`);
    }
    expect(malformed).toEqual(calls.map(([method, path]) => `${method} ${path} 404 "${notOurs}" is not a persona id`));
  });

  it('names every unknown and every missing field of a body at once', async () => {
    const wrongName = await server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId, text: 'hi' } });
    expect(await wrongName.json()).toEqual({ error: 400, message: 'unknown field "text" in request body; content is required' });
    const empty = await server.request('/v1/refine', { method: 'POST', json: {} });
    expect(await empty.json()).toEqual({ error: 400, message: 'provider, personaId and content are required' });
    const persona = await server.request('/v1/personas', { method: 'POST', json: { title: 'x', colour: 'red' } });
    expect(await persona.json()).toEqual({ error: 400, message: 'unknown fields "title", "colour" in request body; name is required' });
    // One problem still reads as before.
    expect((await (await server.request('/v1/personas', { method: 'POST', json: {} })).json()).message).toBe('name is required');
  });
});
