/**
 * PATCH and DELETE /v1/personas/{id}, restore and label removal honour Idempotency-Key like
 * POST /v1/personas (issue 29): a retry of a write whose answer was lost gets the first answer
 * back instead of writing twice, a 412 or a 404. And /docs is served with the studio's headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../src/http/openapi.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('persona writes with an Idempotency-Key', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  async function createPersona(name: string): Promise<string> {
    const created = await server.request('/v1/personas', { method: 'POST', json: { name, attributes: { tone: 'warm' } } });
    expect(created.status).toBe(201);
    return (await created.json()).id;
  }
  const versionsOf = async (id: string) => (await (await server.request(`/v1/personas/${id}/versions`)).json()).length;

  it('a restore sent twice with one key writes one version; the second gets the first answer, replayed', async () => {
    const id = await createPersona('Restore once');
    await server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: { tone: 'dry' } } });
    const send = () => server.request(`/v1/personas/${id}/versions/1/restore`, { method: 'POST', headers: { 'idempotency-key': 'restore-once-1', 'if-match': '"2"' } });
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('etag')).toBe('"3"');
    expect(await second.json()).toEqual(await first.json());
    expect(await versionsOf(id)).toBe(3);
  });

  it('a PATCH with If-Match sent twice with one key is applied once and answers 200 both times (not 412)', async () => {
    const id = await createPersona('Patch once');
    const send = () => server.request(`/v1/personas/${id}`, { method: 'PATCH', headers: { 'idempotency-key': 'patch-once-1', 'if-match': '"1"' }, json: { attributes: { tone: 'dry' } } });
    expect((await send()).status).toBe(200);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe('"2"');
    expect(await versionsOf(id)).toBe(2);
  });

  it('a DELETE sent twice with one key answers 204 both times (not 404)', async () => {
    const id = await createPersona('Delete once');
    const send = () => server.request(`/v1/personas/${id}`, { method: 'DELETE', headers: { 'idempotency-key': 'delete-once-1' } });
    expect((await send()).status).toBe(204);
    expect((await send()).status).toBe(204);
    expect((await server.request(`/v1/personas/${id}`)).status).toBe(404);
  });

  it('a key reused on another persona is refused (422), not answered with the first persona', async () => {
    const a = await createPersona('Key reuse A');
    const b = await createPersona('Key reuse B');
    const patch = (id: string) => server.request(`/v1/personas/${id}`, { method: 'PATCH', headers: { 'idempotency-key': 'reused-key' }, json: { name: 'Renamed' } });
    expect((await patch(a)).status).toBe(200);
    expect((await patch(b)).status).toBe(422);
    expect((await (await server.request(`/v1/personas/${b}`)).json()).name).toBe('Key reuse B');
  });
});

describe('/docs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it.each(['/docs', '/docs/', '/docs/static/swagger-ui-bundle.js'])('%s is sent with a CSP that forbids framing, X-Frame-Options and nosniff', async (path) => {
    const response = await fetch(server.url + path);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(DOCS_CSP);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("object-src 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
