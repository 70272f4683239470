import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe.each(storageTargets)('persona versions and labels on $engine', (target) => {
  let server: TestServer;
  let otherKey: string;
  let keyId: string;
  beforeAll(async () => {
    server = await startTestServer({ target });
    otherKey = await server.createAccount('other');
    keyId = (await server.storage.db.selectFrom('api_keys').select('id').orderBy('created_at').executeTakeFirstOrThrow()).id;
  });
  afterAll(() => server.close());

  const create = async (name: string, attributes: Record<string, unknown> = {}) =>
    (await (await server.request('/v1/personas', { method: 'POST', json: { name, attributes } })).json()) as { id: string };
  const patch = (id: string, json: unknown, headers: Record<string, string> = {}) =>
    server.request(`/v1/personas/${id}`, { method: 'PATCH', json, headers });
  const labelPut = (id: string, label: string, json: unknown, init: { headers?: Record<string, string>; key?: string } = {}) =>
    server.request(`/v1/personas/${id}/labels/${label}`, { method: 'PUT', json, ...init });

  it('records version 1 on create and one more per PATCH, oldest first; the persona body is unchanged', async () => {
    const { id } = await create('Ann', { tone: 'warm' });
    expect((await patch(id, { attributes: { tone: 'dry' } })).headers.get('etag')).toBe('"2"');
    const third = await patch(id, { name: 'Ann v3' });
    expect(third.headers.get('etag')).toBe('"3"');
    expect(Object.keys(await third.json())).toEqual(['id', 'name', 'attributes']);

    const res = await server.request(`/v1/personas/${id}/versions`);
    expect(res.status).toBe(200);
    const versions = await res.json();
    expect(versions.map((v: { version: number; name: string; attributes: unknown }) => [v.version, v.name, v.attributes])).toEqual([
      [1, 'Ann', { tone: 'warm' }],
      [2, 'Ann', { tone: 'dry' }],
      [3, 'Ann v3', { tone: 'dry' }],
    ]);
    for (const version of versions) {
      expect(Object.keys(version)).toEqual(['version', 'name', 'attributes', 'createdAt', 'createdBy']);
      expect(version.createdBy).toBe(keyId);
      expect(new Date(version.createdAt).getTime()).toBeGreaterThan(0);
    }
    expect(JSON.stringify(versions)).not.toContain(server.key);
  });

  it('pages versions like the persona list', async () => {
    const { id } = await create('Pager');
    for (let i = 0; i < 4; i++) await patch(id, { name: `Pager ${i}` });
    const first = await server.request(`/v1/personas/${id}/versions?limit=2`);
    expect((await first.json()).map((v: { version: number }) => v.version)).toEqual([1, 2]);
    expect(first.headers.get('link')).toBe(`</v1/personas/${id}/versions?limit=2&cursor=2>; rel="next"`);
    const second = await server.request(`/v1/personas/${id}/versions?limit=2&cursor=2`);
    expect((await second.json()).map((v: { version: number }) => v.version)).toEqual([3, 4]);
    const last = await server.request(`/v1/personas/${id}/versions?limit=2&cursor=4`);
    expect((await last.json()).map((v: { version: number }) => v.version)).toEqual([5]);
    expect(last.headers.get('link')).toBeNull();
  });

  it('gets one version; 404 naming an unknown version, an unknown persona, another account\'s persona', async () => {
    const { id } = await create('Single', { a: 1 });
    const res = await server.request(`/v1/personas/${id}/versions/1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ version: 1, name: 'Single', attributes: { a: 1 }, createdBy: keyId });

    const unknownVersion = await server.request(`/v1/personas/${id}/versions/7`);
    expect(unknownVersion.status).toBe(404);
    expect(await unknownVersion.json()).toEqual({ error: 404, message: `version 7 of persona "${id}" not found` });

    const missing = '01900000-0000-7000-8000-000000000000';
    for (const path of [`/v1/personas/${missing}/versions`, `/v1/personas/${missing}/versions/1`, `/v1/personas/${missing}/labels`]) {
      const r = await server.request(path);
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: 404, message: `persona "${missing}" not found` });
    }
    for (const path of [`/v1/personas/${id}/versions`, `/v1/personas/${id}/versions/1`, `/v1/personas/${id}/labels`]) {
      const r = await server.request(path, { key: otherKey });
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: 404, message: `persona "${id}" not found` });
    }
    expect((await server.request(`/v1/personas/${id}/versions/0`)).status).toBe(400);
    expect((await server.request(`/v1/personas/${id}/versions/two`)).status).toBe(400);
  });

  it('restores: the old content becomes a new version with a new ETag; history is kept', async () => {
    const { id } = await create('Restorable', { tone: 'warm' });
    await patch(id, { name: 'Broken', attributes: { tone: 'rude' } });
    const res = await server.request(`/v1/personas/${id}/versions/1/restore`, { method: 'POST', headers: { 'if-match': '"2"' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"3"');
    expect(await res.json()).toEqual({ id, name: 'Restorable', attributes: { tone: 'warm' } });
    expect(await (await server.request(`/v1/personas/${id}`)).json()).toEqual({ id, name: 'Restorable', attributes: { tone: 'warm' } });
    const versions = await (await server.request(`/v1/personas/${id}/versions`)).json();
    expect(versions.map((v: { version: number; name: string }) => [v.version, v.name])).toEqual([
      [1, 'Restorable'],
      [2, 'Broken'],
      [3, 'Restorable'],
    ]);
  });

  it('restore: 412 on a stale If-Match, 404 for an unknown version, persona or another account\'s persona', async () => {
    const { id } = await create('Guarded');
    await patch(id, { name: 'Guarded 2' });
    const stale = await server.request(`/v1/personas/${id}/versions/1/restore`, { method: 'POST', headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    expect((await stale.json()).error).toBe(412);
    const weak = await server.request(`/v1/personas/${id}/versions/1/restore`, { method: 'POST', headers: { 'if-match': 'W/"2"' } });
    expect(weak.status).toBe(412);
    const unknown = await server.request(`/v1/personas/${id}/versions/9/restore`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 404, message: `version 9 of persona "${id}" not found` });
    const foreign = await server.request(`/v1/personas/${id}/versions/1/restore`, { method: 'POST', key: otherKey });
    expect(foreign.status).toBe(404);
    const missing = await server.request('/v1/personas/01900000-0000-7000-8000-000000000000/versions/1/restore', { method: 'POST' });
    expect(missing.status).toBe(404);
    // Nothing was written by any of the refused restores.
    expect((await (await server.request(`/v1/personas/${id}/versions`)).json()).length).toBe(2);
  });

  const labelsOf = async (id: string) => (await (await server.request(`/v1/personas/${id}/labels`)).json()) as Record<string, number>;

  it("answers exactly { label: version } at GET …/labels, and each label's policy at GET …/label-policies", async () => {
    const { id } = await create('Governed');
    await patch(id, { name: 'Governed 2' });
    const policy = (label: string, fields: Record<string, unknown> = {}) => ({
      label, protected: label === 'production', minScore: null, minPassRate: null, maxAgeDays: null, isDefault: true, ...fields,
    });
    const policiesOf = async () => {
      const res = await server.request(`/v1/personas/${id}/label-policies`);
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await labelsOf(id)).toEqual({});
    expect(await policiesOf()).toEqual({ production: policy('production') });
    await labelPut(id, 'staging', { version: 2 });
    const gated = await server.request(`/v1/personas/${id}/labels/canary/policy`, { method: 'PUT', json: { minScore: 80, maxAgeDays: 7 } });
    expect(gated.status).toBe(200);
    const labels = await labelsOf(id);
    expect(Object.keys(labels)).toEqual(['staging']);
    expect(labels).toEqual({ staging: 2 });
    expect(await policiesOf()).toEqual({
      canary: policy('canary', { minScore: 80, maxAgeDays: 7, isDefault: false }),
      production: policy('production'),
      staging: policy('staging'),
    });
    // Each entry is what GET …/labels/{label}/policy answers for that label.
    for (const [label, entry] of Object.entries(await policiesOf())) {
      expect(await (await server.request(`/v1/personas/${id}/labels/${label}/policy`)).json()).toEqual(entry);
    }

    // "policies" is an ordinary label name.
    const named = await labelPut(id, 'policies', { version: 1 });
    expect(named.status).toBe(200);
    expect(await named.json()).toEqual({ policies: 1, staging: 2 });
    expect(await labelsOf(id)).toEqual({ policies: 1, staging: 2 });
    expect((await policiesOf()).policies).toEqual(policy('policies'));
    expect((await server.request(`/v1/personas/${id}/labels/policies`, { method: 'DELETE' })).status).toBe(204);
    expect(await labelsOf(id)).toEqual({ staging: 2 });

    const missing = '01900000-0000-7000-8000-000000000000';
    const unknown = await server.request(`/v1/personas/${missing}/label-policies`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 404, message: `persona "${missing}" not found` });
    const foreign = await server.request(`/v1/personas/${id}/label-policies`, { key: otherKey });
    expect(await foreign.json()).toEqual({ error: 404, message: `persona "${id}" not found` });
  });

  it('sets, lists, moves and removes labels', async () => {
    const { id } = await create('Labelled');
    await patch(id, { name: 'Labelled 2' });
    await patch(id, { name: 'Labelled 3' });
    expect(await labelsOf(id)).toEqual({});
    const set = await labelPut(id, 'production', { version: 1 });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ production: 1 });
    expect(await (await labelPut(id, 'staging', { version: 3 })).json()).toEqual({ production: 1, staging: 3 });
    expect(await (await labelPut(id, 'production', { version: 2 }, { headers: { 'if-match': '"3"' } })).json()).toEqual({
      production: 2,
      staging: 3,
    });
    expect(await labelsOf(id)).toEqual({ production: 2, staging: 3 });
    // Labels do not change the persona: same ETag.
    expect((await server.request(`/v1/personas/${id}`)).headers.get('etag')).toBe('"3"');

    const removed = await server.request(`/v1/personas/${id}/labels/staging`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
    expect(await labelsOf(id)).toEqual({ production: 2 });
    const again = await server.request(`/v1/personas/${id}/labels/staging`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: 404, message: `label "staging" of persona "${id}" not found` });
  });

  it('label errors: 400 for a bad name or "latest", 404 for an unknown version or persona, 412 on a stale If-Match', async () => {
    const { id } = await create('Strict');
    for (const bad of ['Production', 'a_b', 'x'.repeat(41), 'caf%C3%A9']) {
      const res = await labelPut(id, bad, { version: 1 });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 400, message: 'label must be 1-40 characters of lowercase letters, digits and "-"' });
    }
    expect((await labelPut(id, 'x'.repeat(40), { version: 1 })).status).toBe(200);
    for (const method of ['PUT', 'DELETE']) {
      const latest = await server.request(`/v1/personas/${id}/labels/latest`, { method, json: method === 'PUT' ? { version: 1 } : undefined });
      expect(latest.status).toBe(400);
      expect(await latest.json()).toEqual({ error: 400, message: 'label "latest" always means the newest version and cannot be set or removed' });
    }
    const unknownVersion = await labelPut(id, 'production', { version: 5 });
    expect(unknownVersion.status).toBe(404);
    expect(await unknownVersion.json()).toEqual({ error: 404, message: `version 5 of persona "${id}" not found` });
    expect((await labelPut(id, 'production', { version: 0 })).status).toBe(400);
    // Numbers beyond what the database stores are a 400, not a database error.
    for (const version of [2147483648, 1e300]) {
      const huge = await labelPut(id, 'production', { version });
      expect(huge.status).toBe(400);
      expect(await huge.json()).toEqual({ error: 400, message: 'version must be at most 2147483647' });
    }
    expect((await server.request(`/v1/personas/${id}/versions/2147483648`)).status).toBe(400);
    expect((await server.request(`/v1/personas/${id}/versions?cursor=1000000000000`)).status).toBe(400);
    expect((await server.request(`/v1/personas/${id}/versions/2147483648/restore`, { method: 'POST' })).status).toBe(400);
    expect((await labelPut(id, 'production', { version: 1, extra: true })).status).toBe(400);
    expect((await labelPut(id, 'production', {})).status).toBe(400);

    const stale = await labelPut(id, 'production', { version: 1 }, { headers: { 'if-match': '"9"' } });
    expect(stale.status).toBe(412);
    const staleDelete = await server.request(`/v1/personas/${id}/labels/${'x'.repeat(40)}`, { method: 'DELETE', headers: { 'if-match': '"2"' } });
    expect(staleDelete.status).toBe(412);
    expect((await labelPut(id, 'production', { version: 1 }, { key: otherKey })).status).toBe(404);
    expect((await server.request(`/v1/personas/${id}/labels/${'x'.repeat(40)}`, { method: 'DELETE', key: otherKey })).status).toBe(404);
    expect((await labelPut('01900000-0000-7000-8000-000000000000', 'production', { version: 1 })).status).toBe(404);
    expect(await labelsOf(id)).toEqual({ ['x'.repeat(40)]: 1 });
  });

  it('deleting a persona deletes its versions and labels', async () => {
    const { id } = await create('Doomed');
    await labelPut(id, 'production', { version: 1 });
    expect((await server.request(`/v1/personas/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await server.request(`/v1/personas/${id}/versions`)).status).toBe(404);
    expect((await server.request(`/v1/personas/${id}/labels`)).status).toBe(404);
    const db = server.storage.db;
    expect(await db.selectFrom('persona_versions').select('version').where('persona_id', '=', id).execute()).toEqual([]);
    expect(await db.selectFrom('persona_labels').select('label').where('persona_id', '=', id).execute()).toEqual([]);
  });

  it('20 concurrent PATCHes get consecutive, gap-free, unique version numbers', async () => {
    const { id } = await create('Raced');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => patch(id, { name: `racer ${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const etags = results.map((r) => Number(r.headers.get('etag')!.replaceAll('"', ''))).sort((a, b) => a - b);
    const versions = (await (await server.request(`/v1/personas/${id}/versions`)).json()).map((v: { version: number }) => v.version);
    process.stdout.write(`20-way PATCH race on ${target.engine}: ETags ${etags.join(',')}; versions ${versions.join(',')}\n`);
    expect(etags).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(versions).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    // Each version holds the name its own PATCH wrote.
    const names = new Map(results.map((r, i) => [r.headers.get('etag'), `racer ${i}`]));
    const history = await (await server.request(`/v1/personas/${id}/versions`)).json();
    for (const v of history.slice(1)) expect(v.name).toBe(names.get(`"${v.version}"`));
  });
});
