import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/accounts/account-service.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { secretFragmentsIn } from '../helpers/secrets.js';

describe.each(storageTargets)('authentication and account isolation on $engine', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target });
  });
  afterAll(() => server.close());

  const unauthorizedCases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty Authorization header', { authorization: '' }],
    ['a Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a token', { authorization: 'Bearer ' }],
    ['an unknown key', { authorization: 'Bearer prk_unknown_key_aaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
  ];

  it.each(unauthorizedCases)('%s → 401 with WWW-Authenticate and the error body', async (_label, headers) => {
    for (const [method, path] of [['GET', '/v1/personas'], ['POST', '/v1/personas'], ['GET', '/v1/personas/x'], ['POST', '/v1/refine']]) {
      const res = await server.request(path!, { method, headers, key: null, ...(method === 'POST' ? { json: { name: 'x' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="persona-refine"');
      const body = await res.json();
      expect(body).toEqual({ error: 401, message: expect.any(String) });
    }
  });

  it('checks the key before the body: an unauthenticated bad body is still 401', async () => {
    const res = await server.request('/v1/personas', { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json' }, key: null });
    expect(res.status).toBe(401);
  });

  it('serves the OpenAPI document without a key', async () => {
    const res = await server.request('/v1/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect((await res.json()).info.version).toBe('1.7.0');
  });

  it('another account\'s persona does not exist: 404 on GET, PATCH, DELETE, empty list, original unchanged', async () => {
    const created = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Mine', attributes: { a: 1 } } })).json();
    const otherKey = await server.createAccount(`other-${target.engine}`);
    const asOther = (path: string, init: Parameters<TestServer['request']>[1] = {}) => server.request(path, { ...init, key: otherKey });

    for (const res of [
      await asOther(`/v1/personas/${created.id}`),
      await asOther(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'stolen' } }),
      await asOther(`/v1/personas/${created.id}`, { method: 'DELETE' }),
    ]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 404, message: `persona "${created.id}" not found` });
    }
    expect(await (await asOther('/v1/personas')).json()).toEqual([]);
    expect(await (await server.request(`/v1/personas/${created.id}`)).json()).toEqual(created);
  });

  it('a revoked key stops working within 5 s', async () => {
    const accounts = new AccountService(new AccountRepository(server.storage.db));
    const issued = await accounts.createKey('default');
    expect((await server.request('/v1/personas', { key: issued.key })).status).toBe(200);
    await accounts.revokeKey(issued.keyId);
    const revokedAt = Date.now();
    await expect.poll(async () => (await server.request('/v1/personas', { key: issued.key })).status, { timeout: 6_000, interval: 100 }).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
  });

  it('several keys of one account see the same personas (rotation)', async () => {
    const accounts = new AccountService(new AccountRepository(server.storage.db));
    const second = await accounts.createKey('default');
    const viaFirst = await (await server.request('/v1/personas')).text();
    expect(await (await server.request('/v1/personas', { key: second.key })).text()).toBe(viaFirst);
  });

  it('never writes a service key, or any fragment of one, into the logs', async () => {
    const unknownKey = 'prk_Xw7Mq2Vz9Lr4Nb6Tc1Hj8Kp3Fd5Gs0YeAu';
    await server.request('/v1/personas', { headers: { authorization: `Bearer ${unknownKey}` }, key: null });
    const logs = server.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const key of [server.key, unknownKey]) expect(secretFragmentsIn(logs, key), key).toEqual([]);
  });
});
