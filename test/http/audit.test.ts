import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

interface Event {
  id: string;
  at: string;
  action: string;
  personaId: string;
  version: number | null;
  fromVersion: number | null;
  label: string | null;
  actor: string | null;
  requestId: string | null;
}

describe.each(storageTargets)('GET /v1/audit on $engine', (target) => {
  let server: TestServer;
  let otherKey: string;
  let keyId: string;
  beforeAll(async () => {
    server = await startTestServer({ target });
    otherKey = await server.createAccount('other');
    keyId = (await server.storage.db.selectFrom('api_keys').select('id').orderBy('created_at').executeTakeFirstOrThrow()).id;
  });
  afterAll(() => server.close());

  const send = (path: string, method: string, json?: unknown, requestId?: string) =>
    server.request(path, { method, json, headers: requestId ? { 'x-request-id': requestId } : {} });
  const audit = async (query = '', key?: string) => (await (await server.request(`/v1/audit${query}`, { key })).json()) as Event[];

  it('one event per change, newest first, with version, label, acting key and request id', async () => {
    const created = await send('/v1/personas', 'POST', { name: 'Audited', attributes: { tone: 'warm' } }, 'req-create');
    const { id } = await created.json();
    await send(`/v1/personas/${id}`, 'PATCH', { name: 'Audited 2' }, 'req-update');
    await send(`/v1/personas/${id}/labels/production`, 'PUT', { version: 1 }, 'req-label-1');
    await send(`/v1/personas/${id}/labels/production`, 'PUT', { version: 2 }, 'req-label-2');
    await send(`/v1/personas/${id}/versions/1/restore`, 'POST', undefined, 'req-restore');
    await send(`/v1/personas/${id}/labels/production`, 'DELETE', undefined, 'req-unlabel');
    await send(`/v1/personas/${id}`, 'DELETE', undefined, 'req-delete');
    // Refused changes leave no event.
    await send('/v1/personas', 'POST', { name: '' }, 'req-refused');

    const events = await audit(`?personaId=${id}`);
    expect(events.map((e) => [e.action, e.version, e.fromVersion, e.label, e.requestId])).toEqual([
      ['persona.deleted', 3, null, null, 'req-delete'],
      ['label.removed', 2, null, 'production', 'req-unlabel'],
      ['persona.restored', 3, 1, null, 'req-restore'],
      ['label.set', 2, 1, 'production', 'req-label-2'],
      ['label.set', 1, null, 'production', 'req-label-1'],
      ['persona.updated', 2, null, null, 'req-update'],
      ['persona.created', 1, null, null, 'req-create'],
    ]);
    for (const event of events) {
      expect(Object.keys(event)).toEqual(['id', 'at', 'action', 'personaId', 'version', 'fromVersion', 'label', 'actor', 'requestId']);
      expect(event.personaId).toBe(id);
      expect(event.actor).toBe(keyId);
      expect(new Date(event.at).getTime()).toBeGreaterThan(0);
    }
    // The persona is gone; its events stay, and they never held its attributes or the key.
    const raw = await (await server.request(`/v1/audit?personaId=${id}`)).text();
    expect(raw).not.toContain('warm');
    expect(raw).not.toContain(server.key);
    expect(events.some((e) => e.requestId === 'req-refused')).toBe(false);
  });

  it('is scoped to the account: another account sees none of these events', async () => {
    const { id } = await (await send('/v1/personas', 'POST', { name: 'Mine' })).json();
    expect((await audit()).some((e) => e.personaId === id)).toBe(true);
    expect((await audit('', otherKey)).some((e) => e.personaId === id)).toBe(false);
    expect(await audit(`?personaId=${id}`, otherKey)).toEqual([]);
  });

  it('pages newest first with a Link rel="next" header', async () => {
    const { id } = await (await send('/v1/personas', 'POST', { name: 'Paged' })).json();
    for (let i = 0; i < 4; i++) await send(`/v1/personas/${id}`, 'PATCH', { name: `Paged ${i}` });
    const first = await server.request(`/v1/audit?personaId=${id}&limit=2`);
    const page1 = (await first.json()) as Event[];
    expect(page1.map((e) => e.version)).toEqual([5, 4]);
    const link = first.headers.get('link')!;
    expect(link).toBe(`</v1/audit?personaId=${id}&limit=2&cursor=${page1[1]!.id}>; rel="next"`);
    const next = /<([^>]+)>/.exec(link)![1]!;
    const page2 = (await (await server.request(next)).json()) as Event[];
    expect(page2.map((e) => e.version)).toEqual([3, 2]);
    const last = await server.request(`/v1/audit?personaId=${id}&limit=2&cursor=${page2[1]!.id}`);
    expect(((await last.json()) as Event[]).map((e) => e.version)).toEqual([1]);
    expect(last.headers.get('link')).toBeNull();
  });

  it('400 for a bad limit or an unknown query parameter, 401 without a key', async () => {
    expect((await server.request('/v1/audit?limit=0')).status).toBe(400);
    expect((await server.request('/v1/audit?limit=1001')).status).toBe(400);
    const unknown = await server.request('/v1/audit?persona=x');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: 400, message: 'unknown field "persona" in query string' });
    expect((await server.request('/v1/audit', { key: null })).status).toBe(401);
  });

  it('a change and its event commit together: a failed event write leaves no change', async () => {
    const { id } = await (await send('/v1/personas', 'POST', { name: 'Atomic' })).json();
    // Make the audit insert fail inside the PATCH's transaction.
    const db = server.storage.db;
    const trigger =
      target.engine === 'sqlite'
        ? `create trigger refuse_audit before insert on audit_events when new.persona_id = '${id}' begin select raise(abort, 'refused'); end`
        : `create or replace function refuse_audit() returns trigger as $$ begin if new.persona_id = '${id}' then raise exception 'refused'; end if; return new; end $$ language plpgsql;
           create trigger refuse_audit before insert on audit_events for each row execute function refuse_audit()`;
    await sql.raw(trigger).execute(db);
    try {
      const res = await send(`/v1/personas/${id}`, 'PATCH', { name: 'Changed' });
      expect(res.status).toBe(500);
      const label = await send(`/v1/personas/${id}/labels/production`, 'PUT', { version: 1 });
      expect(label.status).toBe(500);
    } finally {
      await sql.raw('drop trigger refuse_audit' + (target.engine === 'postgres' ? ' on audit_events' : '')).execute(db);
    }
    const persona = await server.request(`/v1/personas/${id}`);
    expect(persona.headers.get('etag')).toBe('"1"');
    expect((await persona.json()).name).toBe('Atomic');
    expect(((await (await server.request(`/v1/personas/${id}/versions`)).json()) as unknown[]).length).toBe(1);
    expect(await (await server.request(`/v1/personas/${id}/labels`)).json()).toEqual({});
  });
});
