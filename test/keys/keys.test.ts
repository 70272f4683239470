/**
 * Keys over HTTP, on both engines: create (secret once), list and get (never a
 * secret or hash), rotate with and without grace, revoke, expiry, the last
 * keys:admin key, audit events, and no secret in any log, answer, row or metric.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/accounts/api-key.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { SteppedClock } from '../helpers/stepped-clock.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/test-server.js';

/** A key's display prefix (`prk_` + 6) is shown by design. */
const PUBLIC_PREFIX = 10;

describe.each(storageTargets)('keys over HTTP on $engine', (target) => {
  let server: TestServer;
  const clock = new SteppedClock();
  const secrets: string[] = [];
  const answers: string[] = [];
  /** Every answer except creation and rotation, kept to look for secrets in. */
  const call = async (path: string, init: Parameters<TestServer['request']>[1] = {}) => {
    const response = await server.request(path, init);
    const text = await response.clone().text();
    const issuing = init.method === 'POST' && /^\/v1\/keys(\/[^/]+\/rotate)?$/.test(path) && response.status < 300;
    if (!issuing) answers.push(`${[...response.headers].join('\n')}\n${text}`);
    return response;
  };
  const create = async (body: Record<string, unknown>, key?: string) => {
    const response = await call('/v1/keys', { method: 'POST', json: body, key });
    expect(response.status).toBe(201);
    const issued = await response.json();
    secrets.push(issued.secret);
    return issued;
  };

  beforeAll(async () => {
    server = await startTestServer({ target, clock });
  });
  afterAll(() => server?.close());
  afterEach(() => clock.reset());

  it('creates a key whose secret is in the creation answer only, with its scopes, limits and expiry', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const response = await call('/v1/keys', {
      method: 'POST',
      json: { name: 'blog app', scopes: ['refine', 'personas:read'], expiresAt, limits: { tokensPerDay: 5000, refinesPerMinute: 30 } },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const issued = await response.json();
    secrets.push(issued.secret);
    expect(issued).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'blog app',
      scopes: ['refine', 'personas:read'],
      prefix: issued.secret.slice(0, PUBLIC_PREFIX),
      createdAt: expect.any(String),
      expiresAt,
      limits: { tokensPerDay: 5000, refinesPerMinute: 30 },
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^prk_[A-Za-z0-9_-]{43}$/),
    });
    const listed = await (await call('/v1/keys')).json();
    const { secret: _secret, ...shown } = issued;
    expect(listed).toContainEqual(shown);
    expect(await (await call(`/v1/keys/${issued.id}`)).json()).toEqual(shown);
    // The new key works for what it may do, and says who it is.
    expect(await (await call('/v1/keys/current', { key: issued.secret })).json()).toEqual({
      id: issued.id, scopes: ['refine', 'personas:read'], limits: { tokensPerDay: 5000, refinesPerMinute: 30 },
    });
    expect((await call('/v1/personas', { key: issued.secret })).status).toBe(200);
  });

  it('the bootstrap key and keys from before scopes have every scope (*)', async () => {
    expect((await (await call('/v1/keys/current')).json()).scopes).toEqual(['*']);
  });

  it('refuses unknown scopes, past expiry and bad names with 400', async () => {
    expect((await call('/v1/keys', { method: 'POST', json: { name: 'x', scopes: ['personas:admin'] } })).status).toBe(400);
    expect((await call('/v1/keys', { method: 'POST', json: { name: 'x', scopes: [] } })).status).toBe(400);
    const past = await call('/v1/keys', { method: 'POST', json: { name: 'x', scopes: ['refine'], expiresAt: '2020-01-01T00:00:00Z' } });
    expect(await past.json()).toEqual({ error: 400, message: 'expiresAt must be in the future' });
    const vague = await call('/v1/keys', { method: 'POST', json: { name: 'x', scopes: ['refine'], expiresAt: '2030' } });
    expect(await vague.json()).toEqual({ error: 400, message: 'expiresAt must be a date-time, e.g. 2027-01-01T00:00:00Z' });
    expect((await call('/v1/keys', { method: 'POST', json: { name: 'a\u0007b', scopes: ['refine'] } })).status).toBe(400);
  });

  it('expiresAt needs a time zone and a real calendar date (400); an offset is kept as the same instant', async () => {
    const zoneless = await call('/v1/keys', { method: 'POST', json: { name: 'x', scopes: ['refine'], expiresAt: '2030-01-01T00:00:00' } });
    expect(zoneless.status).toBe(400);
    expect((await zoneless.json()).message).toMatch(/time zone/);
    for (const impossible of ['2030-02-31T00:00:00Z', '2030-13-01T00:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01T00:60:00Z', '2030-01-01T00:00:00+25:00']) {
      const refused = await call('/v1/keys', { method: 'POST', json: { name: 'x', scopes: ['refine'], expiresAt: impossible } });
      expect(refused.status, impossible).toBe(400);
      expect((await refused.json()).message, impossible).toMatch(/^expiresAt /);
    }
    const offset = await create({ name: 'offset', scopes: ['refine'], expiresAt: '2030-06-30T23:30:00.5-02:00' });
    expect(offset.expiresAt).toBe('2030-07-01T01:30:00.500Z');
  });

  it('a key cannot create a key that outlives it or has looser limits (403 naming what)', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const expiring = await create({ name: 'expiring admin', scopes: ['keys:admin', 'refine'], expiresAt: tomorrow });
    const forever = await call('/v1/keys', { method: 'POST', key: expiring.secret, json: { name: 'x', scopes: ['refine'] } });
    expect(forever.status).toBe(403);
    expect((await forever.json()).message).toMatch(/expiresAt/);
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const outliving = await call('/v1/keys', { method: 'POST', key: expiring.secret, json: { name: 'x', scopes: ['refine'], expiresAt: later } });
    expect(outliving.status).toBe(403);
    expect((await outliving.json()).message).toMatch(/expiresAt/);
    await create({ name: 'within', scopes: ['refine'], expiresAt: tomorrow }, expiring.secret);

    const limited = await create({ name: 'limited admin', scopes: ['keys:admin', 'refine'], limits: { tokensPerDay: 1000, refinesPerMinute: 10 } });
    const unlimited = await call('/v1/keys', { method: 'POST', key: limited.secret, json: { name: 'x', scopes: ['refine'] } });
    expect(unlimited.status).toBe(403);
    expect((await unlimited.json()).message).toMatch(/tokensPerDay/);
    const looser = await call('/v1/keys', {
      method: 'POST', key: limited.secret, json: { name: 'x', scopes: ['refine'], limits: { tokensPerDay: 1000, refinesPerMinute: 11 } },
    });
    expect(looser.status).toBe(403);
    expect((await looser.json()).message).toMatch(/refinesPerMinute/);
    const within = await create({ name: 'within', scopes: ['refine'], limits: { tokensPerDay: 500, refinesPerMinute: 10 } }, limited.secret);
    expect(within.limits).toEqual({ tokensPerDay: 500, refinesPerMinute: 10 });
  });

  it('a key cannot rotate a key that outlives it or has looser limits: the new secret would (403 naming what)', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const expiring = await create({ name: 'expiring admin', scopes: ['keys:admin', 'refine'], expiresAt: tomorrow });
    const forever = await create({ name: 'forever', scopes: ['refine'] });
    const rotated = await call(`/v1/keys/${forever.id}/rotate`, { method: 'POST', key: expiring.secret, json: {} });
    expect(rotated.status).toBe(403);
    expect((await rotated.json()).message).toMatch(/expiresAt/);
    const limited = await create({ name: 'limited admin', scopes: ['keys:admin', 'refine'], limits: { tokensPerDay: 1000 } });
    const unlimited = await call(`/v1/keys/${forever.id}/rotate`, { method: 'POST', key: limited.secret, json: {} });
    expect(unlimited.status).toBe(403);
    expect((await unlimited.json()).message).toMatch(/tokensPerDay/);
    // Its own key (same expiry, same limits) it may rotate.
    const self = await call(`/v1/keys/${limited.id}/rotate`, { method: 'POST', key: limited.secret, json: {} });
    expect(self.status).toBe(200);
    secrets.push((await self.json()).secret);
  });

  it('rotation without grace: the old secret is refused within 5 s, the new one works, the id stays', async () => {
    const key = await create({ name: 'ci', scopes: ['personas:read'] });
    expect((await call('/v1/personas', { key: key.secret })).status).toBe(200);
    const response = await call(`/v1/keys/${key.id}/rotate`, { method: 'POST', json: {} });
    expect(response.status).toBe(200);
    const rotated = await response.json();
    secrets.push(rotated.secret);
    expect(rotated.id).toBe(key.id);
    expect(rotated.secret).not.toBe(key.secret);
    expect((await call('/v1/personas', { key: rotated.secret })).status).toBe(200);
    clock.step(2_100); // past the authentication cache's TTL
    const old = await call('/v1/personas', { key: key.secret });
    expect(old.status).toBe(401);
  });

  it('rotation with grace: the old secret works until the grace ends, then not', async () => {
    const key = await create({ name: 'graceful', scopes: ['personas:read'] });
    const rotated = await (await call(`/v1/keys/${key.id}/rotate`, { method: 'POST', json: { graceSeconds: 3 } })).json();
    secrets.push(rotated.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(1_500);
    expect((await call('/v1/personas', { key: key.secret })).status).toBe(200);
    expect((await call('/v1/personas', { key: rotated.secret })).status).toBe(200);
    clock.step(3_200);
    expect((await call('/v1/personas', { key: key.secret })).status).toBe(401);
    expect((await call('/v1/personas', { key: rotated.secret })).status).toBe(200);
    expect((await call(`/v1/keys/${key.id}/rotate`, { method: 'POST', json: { graceSeconds: 86_401 } })).status).toBe(400);
  });

  it('revocation: 204, refused within 5 s, gone from the list; another account\'s key is a 404', async () => {
    const key = await create({ name: 'short-lived', scopes: ['refine'] });
    expect((await call('/v1/providers', { key: key.secret })).status).toBe(200);
    expect((await call(`/v1/keys/${key.id}`, { method: 'DELETE' })).status).toBe(204);
    clock.step(2_100);
    expect((await call('/v1/providers', { key: key.secret })).status).toBe(401);
    expect((await (await call('/v1/keys')).json()).map((k: { id: string }) => k.id)).not.toContain(key.id);
    expect((await call(`/v1/keys/${key.id}`)).status).toBe(404);

    const otherKey = await server.createAccount(`other-${target.engine}`);
    secrets.push(otherKey);
    const mine = await create({ name: 'mine', scopes: ['refine'] });
    expect((await call(`/v1/keys/${mine.id}`, { key: otherKey })).status).toBe(404);
    expect((await call(`/v1/keys/${mine.id}`, { method: 'DELETE', key: otherKey })).status).toBe(404);
    expect((await call(`/v1/keys/${mine.id}/rotate`, { method: 'POST', key: otherKey, json: {} })).status).toBe(404);
  });

  it('revoking a key with a scope the caller lacks is a 403 naming that scope, like rotating it', async () => {
    const admin = await create({ name: 'keys admin only', scopes: ['keys:admin'] });
    const everything = await create({ name: 'owner-like', scopes: ['*'] });
    const reader = await create({ name: 'reader', scopes: ['audit:read'] });
    for (const [target, scope] of [[everything, '*'], [reader, 'audit:read']] as const) {
      const refused = await call(`/v1/keys/${target.id}`, { method: 'DELETE', key: admin.secret });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ error: 403, message: `this key lacks the scope "${scope}"` });
      expect((await call(`/v1/keys/${target.id}`)).status).toBe(200);
    }
    const peer = await create({ name: 'peer admin', scopes: ['keys:admin'] });
    expect((await call(`/v1/keys/${peer.id}`, { method: 'DELETE', key: admin.secret })).status).toBe(204);
  });

  it('an account\'s last keys:admin key cannot be deleted (409); with another one it can', async () => {
    const otherKey = await server.createAccount(`admins-${target.engine}`);
    secrets.push(otherKey);
    const self = await (await call('/v1/keys/current', { key: otherKey })).json();
    const last = await call(`/v1/keys/${self.id}`, { method: 'DELETE', key: otherKey });
    expect(last.status).toBe(409);
    expect((await last.json()).message).toMatch(/last key with the scope "keys:admin"/);
    // `*`: revoking a key needs every scope it has (the account's first key has `*`).
    const second = await create({ name: 'second admin', scopes: ['*'] }, otherKey);
    expect((await call(`/v1/keys/${self.id}`, { method: 'DELETE', key: second.secret })).status).toBe(204);
    expect((await call(`/v1/keys/${second.id}`, { method: 'DELETE', key: second.secret })).status).toBe(409);
  });

  it('an account has at most 100 live keys: the next creation is a 409 naming the cap; revoking one frees a slot', async () => {
    const owner = await server.createAccount(`crowded-${target.engine}`);
    secrets.push(owner);
    const made: Array<{ id: string }> = [];
    // The account's first key counts; one that has expired does not.
    made.push(await create({ name: 'soon expired', scopes: ['refine'], expiresAt: new Date(Date.now() + 1_000).toISOString() }, owner));
    for (let i = 0; i < 98; i++) made.push(await create({ name: `key ${i}`, scopes: ['refine'] }, owner));
    // The service counts live keys by the wall clock: the slot is free once the first key has expired.
    await expect
      .poll(async () => (await call('/v1/keys', { method: 'POST', key: owner, json: { name: 'key 99', scopes: ['refine'] } })).status, { timeout: 10_000, interval: 100 })
      .toBe(201);
    const refused = await call('/v1/keys', { method: 'POST', key: owner, json: { name: 'one too many', scopes: ['refine'] } });
    expect(refused.status).toBe(409);
    expect((await refused.json()).message).toMatch(/already has 100 live keys.*revoke one/);
    expect((await call(`/v1/keys/${made[1]!.id}`, { method: 'DELETE', key: owner })).status).toBe(204);
    await create({ name: 'after a revocation', scopes: ['refine'] }, owner);
    expect((await call('/v1/keys', { method: 'POST', key: owner, json: { name: 'again too many', scopes: ['refine'] } })).status).toBe(409);
  });

  it('an expired key is a 401 saying it expired, and key.expired is written once', async () => {
    const key = await create({ name: 'temporary', scopes: ['audit:read'], expiresAt: new Date(Date.now() + 1_500).toISOString() });
    expect((await call('/v1/audit', { key: key.secret })).status).toBe(200);
    clock.step(2_200);
    const requestIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const refused = await call('/v1/audit', { key: key.secret });
      expect(refused.status).toBe(401);
      expect((await refused.json()).message).toMatch(/^API key expired at \d{4}-/);
      requestIds.push(refused.headers.get('x-request-id')!);
    }
    const expiredEvents = async () =>
      ((await (await call('/v1/audit?limit=1000')).json()) as Array<{ action: string; keyId?: string }>).filter((e) => e.action === 'key.expired' && e.keyId === key.id);
    await expect.poll(expiredEvents).toHaveLength(1);
    const expired = await expiredEvents();
    expect(expired).toHaveLength(1);
    // Written by the first refusal; the actor is the expired key itself.
    expect(expired[0]).toMatchObject({ actor: key.id, requestId: requestIds[0], personaId: null });
  });

  it('audits key.created, key.rotated and key.revoked with actor and key id, never a secret', async () => {
    const key = await create({ name: 'audited', scopes: ['refine'] });
    const rotated = await (await call(`/v1/keys/${key.id}/rotate`, { method: 'POST', json: { graceSeconds: 10 } })).json();
    secrets.push(rotated.secret);
    await call(`/v1/keys/${key.id}`, { method: 'DELETE' });
    const events = (await (await call('/v1/audit?limit=1000')).json()).filter((e: { keyId?: string }) => e.keyId === key.id);
    const bootstrapId = (await (await call('/v1/keys/current')).json()).id;
    expect(events.map((e: { action: string }) => e.action)).toEqual(['key.revoked', 'key.rotated', 'key.created']);
    for (const event of events) {
      expect(event).toMatchObject({ personaId: null, actor: bootstrapId, keyId: key.id, requestId: expect.any(String) });
    }
    expect(events[1].detail).toBe('graceSeconds=10');
  });

  it('no secret in any log line, answer (but creation and rotation), database row or metric', async () => {
    const metrics = await (await server.request('/metrics', { key: null })).text();
    const tables = ['api_keys', 'audit_events', 'accounts', 'usage_daily', 'usage_daily_keys', 'label_policies', 'idempotency_keys'] as const;
    const rows: string[] = [];
    for (const table of tables) rows.push(JSON.stringify(await server.storage.db.selectFrom(table).selectAll().execute()));
    const everything = [...server.logs, ...answers, ...rows, metrics].join('\n');
    expect(secrets.length).toBeGreaterThan(5);
    for (const secret of [...secrets, TEST_KEY]) {
      expect(secretFragmentsIn(everything, secret, PUBLIC_PREFIX), secret.slice(0, 10)).toEqual([]);
    }
    // Stored as SHA-256 hashes only.
    const stored = await server.storage.db.selectFrom('api_keys').select(['key_hash', 'previous_key_hash']).execute();
    const hashes = new Set(stored.flatMap((r) => [r.key_hash, r.previous_key_hash]));
    for (const secret of secrets) expect(hashes.has(hashApiKey(secret)), secret.slice(0, 10)).toBe(true);
    expect([...hashes].filter((h) => h !== null).every((h) => /^[0-9a-f]{64}$/.test(h!))).toBe(true);
    // Hashes are not answers either.
    for (const hash of hashes) if (hash) expect(answers.join('\n')).not.toContain(hash);
  });
});
