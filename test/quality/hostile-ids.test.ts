/**
 * Ids an attacker with one valid key sends to the feedback and review routes: a NUL, the longest
 * allowed, one over it. Each is a precise 4xx on both engines, never a 500 (PostgreSQL refuses
 * NUL in text, so such an id must never reach a query).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe.each(storageTargets)('hostile ids on the quality routes, on $engine', (target) => {
  let server: TestServer;
  let personaId: string;
  beforeAll(async () => {
    server = await startTestServer({ target });
    personaId = (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Hostile' } })).json()).id;
  });
  afterAll(() => server?.close());

  const answer = async (res: Response) => [res.status, (await res.json()) as { error: number; message: string }] as const;

  it.each([
    ['a NUL', 'req\u0000id'],
    ['the longest allowed', 'r'.repeat(128)],
    ['a control character', 'req\u0001id'],
  ])('feedback naming %s is a 404 or 400 with the error body', async (_, requestId) => {
    const [status, body] = await answer(await server.request('/v1/feedback', { method: 'POST', json: { requestId, rating: 'up' } }));
    expect([400, 404]).toContain(status);
    expect(body).toEqual({ error: status, message: expect.any(String) });
  });

  it('a request id over 128 characters is a 400', async () => {
    const [status, body] = await answer(await server.request('/v1/feedback', { method: 'POST', json: { requestId: 'r'.repeat(129), rating: 'up' } }));
    expect([status, body.error]).toEqual([400, 400]);
  });

  it.each([['%00'], ['a%00b'], [encodeURIComponent('r'.repeat(129))]])('resolving review %s is a 4xx with the error body', async (id) => {
    const [status, body] = await answer(await server.request(`/v1/personas/${personaId}/reviews/${id}/resolve`, { method: 'POST', json: {} }));
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(body).toEqual({ error: status, message: expect.any(String) });
  });

  it('a feedback list cursor with a NUL is a 4xx', async () => {
    const [status] = await answer(await server.request(`/v1/personas/${personaId}/feedback?cursor=%00`));
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
  });
});
