/**
 * Errors raised by the framework, its plugins or other libraries: a client's mistake
 * stays a 4xx in the error shape, and nothing outside the storage layer can pass for a
 * storage outage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('errors from outside the domain', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      beforeListen: (app) => {
        // What a Redis or socket failure looks like when it reaches the error handler.
        app.get('/test-only/foreign-connection-error', { config: { public: true } }, async () => {
          throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:6379'), { code: 'ECONNREFUSED' });
        });
      },
    });
  });
  afterAll(() => server.close());

  it('a connection error from outside storage is a bug (500), not "storage is unavailable"', async () => {
    const response = await server.request('/test-only/foreign-connection-error', { key: null });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 500, message: 'internal error; the request id identifies it in our logs' });
  });

  it('a Range the static file server cannot satisfy stays its 416, in the error shape', async () => {
    const response = await rawRequest(server.url, 'GET', '/studio/index.html', { range: 'bytes=99999999-' });
    expect(response.status).toBe(416);
    expect(JSON.parse(response.body)).toEqual({ error: 416, message: expect.any(String) });
  });
});
