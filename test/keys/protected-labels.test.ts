/**
 * Protected labels on both engines: `production` protected for new personas,
 * a policy turning protection on and off, the scope each move needs, the
 * evaluation fields stored and gating moves, and personas from before label
 * policies keeping an unprotected `production`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migrator, sql } from 'kysely';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe.each(storageTargets)('protected labels on $engine', (target) => {
  let server: TestServer;
  let writer: string;
  let releaser: string;

  const newPersona = async () => {
    const id = (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Labelled' } })).json()).id as string;
    await server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Labelled v2' } });
    return id;
  };
  const key = async (scopes: string[]) => (await (await server.request('/v1/keys', { method: 'POST', json: { name: scopes.join(' '), scopes } })).json()).secret as string;

  beforeAll(async () => {
    server = await startTestServer({ target });
    writer = await key(['labels:write', 'personas:read']);
    releaser = await key(['labels:write', 'labels:protected', 'personas:read']);
  });
  afterAll(() => server?.close());

  it('production is protected for a new persona: labels:write alone is refused, labels:protected moves it', async () => {
    const id = await newPersona();
    expect(await (await server.request(`/v1/personas/${id}/labels/production/policy`, { key: writer })).json()).toEqual({
      label: 'production', protected: true, minScore: null, minPassRate: null, maxAgeDays: null, isDefault: true,
    });
    const refused = await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', key: writer, json: { version: 1 } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 403, message: 'this key lacks the scope "labels:protected"' });
    const moved = await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', key: releaser, json: { version: 1 } });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual({ production: 1 });
    // Removing is a move too.
    expect((await server.request(`/v1/personas/${id}/labels/production`, { method: 'DELETE', key: writer })).status).toBe(403);
    expect((await server.request(`/v1/personas/${id}/labels/production`, { method: 'DELETE', key: releaser })).status).toBe(204);
    // Other labels are not protected by default.
    expect((await server.request(`/v1/personas/${id}/labels/staging`, { method: 'PUT', key: writer, json: { version: 2 } })).status).toBe(200);
  });

  it('a policy protects any label, and can unprotect production; DELETE goes back to the default', async () => {
    const id = await newPersona();
    const put = await server.request(`/v1/personas/${id}/labels/stable/policy`, { method: 'PUT', key: releaser, json: { protected: true } });
    expect(put.status).toBe(200);
    expect((await put.json()).protected).toBe(true);
    expect((await server.request(`/v1/personas/${id}/labels/stable`, { method: 'PUT', key: writer, json: { version: 1 } })).status).toBe(403);
    // Setting a policy needs labels:protected.
    const denied = await server.request(`/v1/personas/${id}/labels/production/policy`, { method: 'PUT', key: writer, json: { protected: false } });
    expect(await denied.json()).toEqual({ error: 403, message: 'this key lacks the scope "labels:protected"' });
    await server.request(`/v1/personas/${id}/labels/production/policy`, { method: 'PUT', key: releaser, json: { protected: false } });
    expect((await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', key: writer, json: { version: 2 } })).status).toBe(200);
    expect((await server.request(`/v1/personas/${id}/labels/production/policy`, { method: 'DELETE', key: releaser })).status).toBe(204);
    expect((await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', key: writer, json: { version: 1 } })).status).toBe(403);
    expect((await server.request(`/v1/personas/${id}/labels/production/policy`, { method: 'DELETE', key: releaser })).status).toBe(404);
    const events = (await (await server.request(`/v1/audit?personaId=${id}`)).json()).map((e: { action: string; label: string }) => `${e.action} ${e.label}`);
    expect(events).toEqual(expect.arrayContaining(['label.policy.set stable', 'label.policy.set production', 'label.policy.removed production']));
  });

  it('evaluation fields are stored and answered and gate the move (test/evals/evals.test.ts has the rest); leaving protected out keeps the protection; unknown fields are a 400', async () => {
    const id = await newPersona();
    const put = await server.request(`/v1/personas/${id}/labels/production/policy`, {
      method: 'PUT', key: releaser, json: { minScore: 80, minPassRate: 0.9, maxAgeDays: 7 },
    });
    expect(await put.json()).toEqual({ label: 'production', protected: true, minScore: 80, minPassRate: 0.9, maxAgeDays: 7, isDefault: false });
    // Enforced: a version without any evaluation cannot be labelled, even by a key allowed to move it.
    expect((await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', key: releaser, json: { version: 1 } })).status).toBe(409);
    const unknown = await server.request(`/v1/personas/${id}/labels/production/policy`, { method: 'PUT', key: releaser, json: { protect: true } });
    expect(unknown.status).toBe(400);
    expect((await server.request(`/v1/personas/${id}/labels/latest/policy`, { method: 'PUT', key: releaser, json: { protected: true } })).status).toBe(400);
  });

  it('deleting a persona whose protected label points at a version needs labels:protected; a protected policy on an unset label does not', async () => {
    const deleter = await key(['personas:write', 'personas:read']);
    const remove = (id: string, as: string) => server.request(`/v1/personas/${id}`, { method: 'DELETE', key: as });
    const exists = async (id: string) => (await server.request(`/v1/personas/${id}`)).status === 200;

    // production set (protected by default) and gated.
    const gated = await newPersona();
    expect((await server.request(`/v1/personas/${gated}/labels/production`, { method: 'PUT', key: releaser, json: { version: 1 } })).status).toBe(200);
    await server.request(`/v1/personas/${gated}/labels/production/policy`, { method: 'PUT', key: releaser, json: { minScore: 90 } });
    const refused = await remove(gated, deleter);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 403, message: 'this key lacks the scope "labels:protected"' });
    expect(await exists(gated)).toBe(true);
    // Refused before If-Match is compared, as a label's removal is.
    expect((await server.request(`/v1/personas/${gated}`, { method: 'DELETE', key: deleter, headers: { 'if-match': '"9"' } })).status).toBe(403);

    // A label protected by its policy.
    const stable = await newPersona();
    await server.request(`/v1/personas/${stable}/labels/stable/policy`, { method: 'PUT', key: releaser, json: { protected: true } });
    await server.request(`/v1/personas/${stable}/labels/stable`, { method: 'PUT', key: releaser, json: { version: 2 } });
    expect((await remove(stable, deleter)).status).toBe(403);

    // Protected policies on labels that point nowhere, and an unprotected label set: nothing served is taken away.
    const unset = await newPersona();
    await server.request(`/v1/personas/${unset}/labels/stable/policy`, { method: 'PUT', key: releaser, json: { protected: true } });
    await server.request(`/v1/personas/${unset}/labels/staging`, { method: 'PUT', key: releaser, json: { version: 1 } });
    expect((await remove(unset, deleter)).status).toBe(204);

    // With labels:protected as well, both go.
    const remover = await key(['personas:write', 'personas:read', 'labels:protected']);
    expect((await remove(gated, remover)).status).toBe(204);
    expect((await remove(stable, remover)).status).toBe(204);
    expect(await exists(gated)).toBe(false);
  });

  it('a replay (same Idempotency-Key) of a protected label\'s removal or a persona\'s deletion checks labels:protected first', async () => {
    const id = await newPersona();
    expect((await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', key: releaser, json: { version: 1 } })).status).toBe(200);
    expect((await server.request(`/v1/personas/${id}/labels/staging`, { method: 'PUT', key: releaser, json: { version: 1 } })).status).toBe(200);
    const removeLabel = (label: string, key: string, idempotencyKey: string) =>
      server.request(`/v1/personas/${id}/labels/${label}`, { method: 'DELETE', key, headers: { 'idempotency-key': idempotencyKey } });
    const removed = `remove-production-${target.engine}`;
    expect((await removeLabel('production', releaser, removed)).status).toBe(204);
    const refused = await removeLabel('production', writer, removed);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 403, message: 'this key lacks the scope "labels:protected"' });
    const replayed = await removeLabel('production', releaser, removed);
    expect(replayed.status).toBe(204);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    // An unprotected label's removal needed no more than labels:write: any key that may replay it does.
    const plain = `remove-staging-${target.engine}`;
    expect((await removeLabel('staging', releaser, plain)).status).toBe(204);
    expect((await removeLabel('staging', writer, plain)).headers.get('idempotent-replayed')).toBe('true');

    const deletable = await newPersona();
    expect((await server.request(`/v1/personas/${deletable}/labels/production`, { method: 'PUT', key: releaser, json: { version: 1 } })).status).toBe(200);
    const deleter = await key(['personas:write', 'labels:protected']);
    const plainDeleter = await key(['personas:write']);
    const deletePersona = (secret: string) =>
      server.request(`/v1/personas/${deletable}`, { method: 'DELETE', key: secret, headers: { 'idempotency-key': `delete-${target.engine}` } });
    expect((await deletePersona(deleter)).status).toBe(204);
    const deleteRefused = await deletePersona(plainDeleter);
    expect(deleteRefused.status).toBe(403);
    expect(await deleteRefused.json()).toEqual({ error: 403, message: 'this key lacks the scope "labels:protected"' });
    expect((await deletePersona(deleter)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('a persona deleted takes its policies with it', async () => {
    const id = await newPersona();
    await server.request(`/v1/personas/${id}/labels/stable/policy`, { method: 'PUT', json: { protected: true } });
    await server.request(`/v1/personas/${id}`, { method: 'DELETE' });
    const left = await server.storage.db.selectFrom('label_policies').selectAll().where('persona_id', '=', id).execute();
    expect(left).toEqual([]);
  });
});

describe.each(storageTargets)('migration 027 on $engine', (target) => {
  it('personas from before keep an unprotected production; keys from before get every scope; down and up again', async () => {
    const database = await target.create();
    const storage = await openStorage(database.config);
    try {
      const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('2026-11-23-016-persona-history')).error).toBeUndefined();
      const at = new Date().toISOString();
      // As the previous release wrote them.
      await sql`insert into accounts (id, name, created_at) values ('acc-old', 'old', ${at})`.execute(storage.db);
      await sql`insert into api_keys (id, account_id, key_hash, prefix, created_at, revoked_at) values ('key_old', 'acc-old', ${'a'.repeat(64)}, 'prk_old', ${at}, null)`.execute(storage.db);
      await sql`insert into personas (id, account_id, name, attributes, version, created_at, updated_at) values ('p-old', 'acc-old', 'Old', '{}', 1, ${at}, ${at})`.execute(storage.db);
      await migrateToLatest(storage.db);
      expect(await storage.db.selectFrom('label_policies').select(['persona_id', 'label', 'protected']).execute()).toEqual([
        { persona_id: 'p-old', label: 'production', protected: 0 },
      ]);
      expect(await storage.db.selectFrom('api_keys').select(['scopes', 'name', 'tokens_per_day']).execute()).toEqual([
        { scopes: '["*"]', name: '', tokens_per_day: null },
      ]);
    } finally {
      await storage.close();
      await database.remove();
    }
  });
});
