/**
 * How long keys live, on both engines: the last keys:admin key that does not expire
 * cannot be revoked while only expiring ones remain, an expiresAt beyond what an RFC
 * 3339 date-time in UTC can present is refused before anything is written, and a stored
 * expiry the service cannot present counts as already past, never as a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe.each(storageTargets)('key lifetimes on $engine', (target) => {
  let server: TestServer;
  const create = async (body: Record<string, unknown>, key?: string) => {
    const response = await server.request('/v1/keys', { method: 'POST', json: body, key });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; secret: string; createdAt: string };
  };
  const currentId = async (key: string) => (await (await server.request('/v1/keys/current', { key })).json()).id as string;
  const keyRows = () => server.storage.db.selectFrom('api_keys').select('id').execute();

  beforeAll(async () => {
    server = await startTestServer({ target });
  });
  afterAll(() => server?.close());

  it('the last keys:admin key that does not expire cannot be revoked (409) while the other admin keys expire', async () => {
    const owner = await server.createAccount(`lockout-${target.engine}`);
    const ownerId = await currentId(owner);
    const soon = new Date(Date.now() + 60_000).toISOString();
    const expiringAdmin = await create({ name: 'expiring admin', scopes: ['keys:admin'], expiresAt: soon }, owner);
    const expiringOwnerLike = await create({ name: 'expiring owner-like', scopes: ['*'], expiresAt: soon }, owner);

    const refused = await server.request(`/v1/keys/${ownerId}`, { method: 'DELETE', key: owner });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: 409,
      message: `key "${ownerId}" is the account's last key with the scope "keys:admin" that does not expire; create another one without expiresAt before deleting it`,
    });
    expect((await server.request(`/v1/keys/${ownerId}`, { method: 'DELETE', key: expiringOwnerLike.secret })).status).toBe(409);
    expect((await server.request('/v1/keys/current', { key: owner })).status).toBe(200);

    // An expiring admin key may go while one that does not expire stays.
    expect((await server.request(`/v1/keys/${expiringAdmin.id}`, { method: 'DELETE', key: owner })).status).toBe(204);
    // With a second admin key that does not expire, the first may go.
    const lasting = await create({ name: 'lasting admin', scopes: ['*'] }, owner);
    expect((await server.request(`/v1/keys/${ownerId}`, { method: 'DELETE', key: lasting.secret })).status).toBe(204);
    expect((await server.request(`/v1/keys/${lasting.id}`, { method: 'DELETE', key: lasting.secret })).status).toBe(409);
  });

  it('an expiresAt at or after the year 10000 in UTC is a 400 naming expiresAt, and no key is written', async () => {
    const before = (await keyRows()).length;
    for (const late of ['9999-12-31T23:59:59-23:59', '9999-12-31T23:00:00-01:00']) {
      const refused = await server.request('/v1/keys', { method: 'POST', json: { name: 'far future', scopes: ['refine'], expiresAt: late } });
      expect(refused.status, late).toBe(400);
      expect(await refused.json(), late).toEqual({ error: 400, message: `expiresAt ${JSON.stringify(late)} is after the year 9999 in UTC; it must be before 10000-01-01T00:00:00Z` });
    }
    expect(await keyRows()).toHaveLength(before);
    expect((await server.request('/v1/keys')).status).toBe(200);
    // The last instant that fits is accepted, and presented in UTC.
    const latest = await create({ name: 'latest', scopes: ['refine'], expiresAt: '9999-12-31T23:59:59.999+00:00' });
    expect((await (await server.request(`/v1/keys/${latest.id}`)).json()).expiresAt).toBe('9999-12-31T23:59:59.999Z');
  });

  it('a stored expiry the service cannot present counts as past: listed as expired at its creation, refused with 401, never a 500', async () => {
    const owner = await server.createAccount(`unreadable-${target.engine}`);
    const stored = ['+010000-01-01T23:58:59.000Z', 'not a date', '2030-01-01T00:00:00', '10000-01-01T00:00:00.000Z'];
    const keys = [];
    for (const text of stored) {
      const key = await create({ name: `stored ${text}`, scopes: ['keys:admin', 'refine'] }, owner);
      await server.storage.db.updateTable('api_keys').set({ expires_at: text }).where('id', '=', key.id).execute();
      keys.push(key);
    }
    const listed = await server.request('/v1/keys', { key: owner });
    expect(listed.status).toBe(200);
    const byId = new Map(((await listed.json()) as { id: string; expiresAt: string }[]).map((k) => [k.id, k.expiresAt]));
    for (const key of keys) {
      expect(byId.get(key.id), key.id).toBe(key.createdAt);
      const one = await server.request(`/v1/keys/${key.id}`, { key: owner });
      expect(one.status).toBe(200);
      expect((await one.json()).expiresAt).toBe(key.createdAt);
      for (const path of ['/v1/keys/current', '/v1/providers']) {
        const refused = await server.request(path, { key: key.secret });
        expect(refused.status, `${path} ${key.id}`).toBe(401);
        expect(await refused.json()).toEqual({ error: 401, message: 'API key has an expiry this service cannot read, so it counts as expired; ask for a new one' });
      }
    }
    // Such a key is no admin key that lasts: the owner's own key stays the last one that does not expire.
    const ownerId = await currentId(owner);
    expect((await server.request(`/v1/keys/${ownerId}`, { method: 'DELETE', key: owner })).status).toBe(409);
  });
});
