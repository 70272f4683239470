/**
 * Response schemas run (docs/http-contract.md, "Response bodies"): every 2xx JSON body a test
 * receives through `TestServer.request` is checked against the OpenAPI document. These tests show
 * the check itself works, and cover the one body written by hand: the unpaged persona list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseBodyCheck } from '../helpers/response-bodies.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('2xx bodies against the OpenAPI document', () => {
  let server: TestServer;
  let check: ResponseBodyCheck;
  beforeAll(async () => {
    server = await startTestServer({
      // A route that declares one body and sends another, as a hand-built string would.
      beforeListen: (app) =>
        app.get(
          '/v1/drift-probe',
          {
            config: { public: true },
            schema: { response: { 200: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } } },
          },
          async (_request, reply) => reply.type('application/json; charset=utf-8').send('{"b":1}'),
        ),
    });
    check = new ResponseBodyCheck(await (await server.request('/v1/openapi.json', { key: null })).json());
  });
  afterAll(() => server.close());

  it('fails the request that receives a body its route does not describe, naming the route', async () => {
    await expect(server.request('/v1/drift-probe', { key: null })).rejects.toThrow(/GET \/v1\/drift-probe 200: the body does not match/);
  });

  it('matches path templates, literal segments first, and leaves undocumented routes alone', () => {
    expect(check.routeOf('/v1/personas/0193a0b2-1c3d-7e4f-8a9b-0c1d2e3f4a5b/versions/3?x=1')).toBe('/v1/personas/{id}/versions/{version}');
    expect(check.routeOf('/v1/keys/current')).toBe('/v1/keys/current');
    expect(check.routeOf('/v1/keys/abc')).toBe('/v1/keys/{id}');
    expect(check.routeOf('/health')).toBeUndefined();
  });

  it('rejects a persona without its attributes, and a status the operation does not list', () => {
    expect(() => check.check('GET', '/v1/personas/x', 200, '{"id":"x","name":"n"}')).toThrow(/GET \/v1\/personas\/\{id\} 200: .*\n.*attributes/);
    expect(() => check.check('GET', '/v1/personas/x', 202, '{}')).toThrow(/does not list/);
    check.check('GET', '/v1/personas/x', 200, '{"id":"x","name":"n","attributes":{"maxWords":"old shape"}}');
  });

  it('checks the unpaged persona list, the one 200 body written by hand, when it streams in batches', async () => {
    const fresh = await startTestServer();
    try {
      // More than one batch of 8, so the list is streamed.
      for (let i = 0; i < 20; i++) {
        await fresh.request('/v1/personas', { method: 'POST', json: { name: `p${i}`, attributes: { tone: ['warm'], [`k${i}`]: { deep: [i, 'ü'] } } } });
      }
      const res = await fresh.request('/v1/personas');
      expect(res.status).toBe(200);
      const text = await res.text();
      const before = check.checked;
      check.check('GET', '/v1/personas', 200, text);
      expect(check.checked).toBe(before + 1);
      expect(JSON.parse(text)).toHaveLength(20);
    } finally {
      await fresh.close();
    }
  });
});
