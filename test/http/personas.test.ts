import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each(storageTargets)('persona endpoints on $engine', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target });
  });
  afterAll(() => server.close());

  const create = (json: unknown, headers: Record<string, string> = {}) =>
    server.request('/v1/personas', { method: 'POST', json, headers });

  it('creates a persona: 201, Location, ETag, exactly { id, name, attributes }', async () => {
    const res = await create({ name: '  Support bot  ', attributes: { tone: 'warm' } });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['id', 'name', 'attributes']);
    expect(body.id).toMatch(UUIDV7);
    expect(body).toEqual({ id: body.id, name: 'Support bot', attributes: { tone: 'warm' } });
    expect(res.headers.get('location')).toBe(`/v1/personas/${body.id}`);
    expect(res.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('x-service-version')).toMatch(/^persona-refine\//);
  });

  it('defaults attributes to {} when absent', async () => {
    const res = await create({ name: 'Plain' });
    expect(res.status).toBe(201);
    expect((await res.json()).attributes).toEqual({});
  });

  it('returns attributes verbatim: key order, unicode, nesting, numbers', async () => {
    const raw =
      '{"name":"Verbatim","attributes":{"zeta":1,"alpha":{"z":[1,2.5,-3e-7,{"b":null,"a":true}],"a":"ünïcödé ✨ 漢字 \\ud83d\\ude00"},"emptyObj":{},"emptyArr":[],"big":12345678901234,"neg":-0.5,"esc":"line\\nbreak \\"quoted\\" \\\\ slash"}}';
    const res = await server.request('/v1/personas', { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    const created = await res.json();
    const got = await server.request(`/v1/personas/${created.id}`);
    const text = await got.text();
    const expected = JSON.stringify(JSON.parse(raw).attributes);
    expect(text).toBe(`{"id":"${created.id}","name":"Verbatim","attributes":${expected}}`);
    expect(Object.keys(JSON.parse(text).attributes)).toEqual(['zeta', 'alpha', 'emptyObj', 'emptyArr', 'big', 'neg', 'esc']);
  });

  it('returns attributes verbatim through the response schema: well-known keys keep their place, escapes and unicode too', async () => {
    // The schema declares the well-known keys (tone, signOff…); serializing through it must not move them first.
    const raw =
      '{"name":"Order","attributes":{"zeta":{"tone":"nested"},"tone":["warm"],"10":"ten","2":"two","custom":"\\u2028 \u2028 \\ud800 \\u0007 😀","signOff":"Cheers,\\nAcme","maxWords":120,"x":1e21}}';
    const res = await server.request('/v1/personas', { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
    const created = await res.json();
    expect(res.status, JSON.stringify(created)).toBe(201);
    const expected = JSON.stringify(JSON.parse(raw).attributes);
    for (const path of [`/v1/personas/${created.id}`, `/v1/personas/${created.id}/versions/1`]) {
      const text = await (await server.request(path)).text();
      expect(text.slice(text.indexOf('"attributes":') + 13, text.indexOf('"attributes":') + 13 + expected.length)).toBe(expected);
    }
    const listed = await (await server.request('/v1/personas?limit=1000')).text();
    expect(listed).toContain(`"attributes":${expected}`);
  });

  it('gets one persona with ETag and Last-Modified', async () => {
    const created = await (await create({ name: 'Getter', attributes: { a: 1 } })).json();
    const res = await server.request(`/v1/personas/${created.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(created);
    expect(res.headers.get('etag')).toBe('"1"');
    expect(new Date(res.headers.get('last-modified')!).getTime()).toBeGreaterThan(0);
  });

  it('lists only this account\'s personas, oldest first, all of them without limit', async () => {
    const fresh = await startTestServer({ target });
    try {
      const names = Array.from({ length: 7 }, (_, i) => `p${i}`);
      for (const name of names) await fresh.request('/v1/personas', { method: 'POST', json: { name } });
      const res = await fresh.request('/v1/personas');
      expect(res.status).toBe(200);
      expect(res.headers.get('link')).toBeNull();
      expect((await res.json()).map((p: { name: string }) => p.name)).toEqual(names);
    } finally {
      await fresh.close();
    }
  });

  it('pages with limit and a Link rel="next" header until the end', async () => {
    const fresh = await startTestServer({ target });
    try {
      for (let i = 0; i < 5; i++) await fresh.request('/v1/personas', { method: 'POST', json: { name: `n${i}` } });
      const seen: string[] = [];
      let next: string | null = '/v1/personas?limit=2';
      let pages = 0;
      while (next) {
        const res = await fresh.request(next);
        expect(res.status).toBe(200);
        seen.push(...(await res.json()).map((p: { name: string }) => p.name));
        next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
        pages++;
      }
      expect(seen).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
      expect(pages).toBe(3);
    } finally {
      await fresh.close();
    }
  });

  it('pages from a cursor given without a limit', async () => {
    const fresh = await startTestServer({ target });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await (await fresh.request('/v1/personas', { method: 'POST', json: { name: `c${i}` } })).json()).id);
      const res = await fresh.request(`/v1/personas?cursor=${ids[0]}`);
      expect((await res.json()).map((p: { id: string }) => p.id)).toEqual(ids.slice(1));
      expect(res.headers.get('link')).toBeNull();
    } finally {
      await fresh.close();
    }
  });

  it('patches: a present field replaces, an absent one is kept, attributes replaced whole', async () => {
    const created = await (await create({ name: 'Before', attributes: { tone: 'dry', keep: { deep: 1 } } })).json();
    const renamed = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'After' } });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ id: created.id, name: 'After', attributes: { tone: 'dry', keep: { deep: 1 } } });
    expect(renamed.headers.get('etag')).toBe('"2"');

    const replaced = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { attributes: { tone: 'warm' } } });
    expect(await replaced.json()).toEqual({ id: created.id, name: 'After', attributes: { tone: 'warm' } });
    expect(replaced.headers.get('etag')).toBe('"3"');
  });

  it('honours If-Match: the current ETag wins, a stale one gets 412 and changes nothing', async () => {
    const res = await create({ name: 'Guarded' });
    const created = await res.json();
    const etag = res.headers.get('etag')!;
    const ok = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'G2' }, headers: { 'if-match': etag } });
    expect(ok.status).toBe(200);
    const outdated = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'G3' }, headers: { 'if-match': etag } });
    expect(outdated.status).toBe(412);
    expect(await outdated.json()).toEqual({ error: 412, message: expect.stringContaining('If-Match') });
    expect((await (await server.request(`/v1/personas/${created.id}`)).json()).name).toBe('G2');
    const weak = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'G4' }, headers: { 'if-match': `W/${ok.headers.get('etag')}` } });
    expect(weak.status).toBe(412);
    const any = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'G5' }, headers: { 'if-match': '*' } });
    expect(any.status).toBe(200);
    // A list of tags matches when any of them is current (RFC 9110).
    const current = any.headers.get('etag')!;
    const listed = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'G6' }, headers: { 'if-match': `"999", ${current}` } });
    expect(listed.status).toBe(200);
    const stale = await server.request(`/v1/personas/${created.id}`, { method: 'DELETE', headers: { 'if-match': `"998", "999"` } });
    expect(stale.status).toBe(412);
  });

  it('deletes: 204 with an empty body, then 404 for GET, PATCH and a second DELETE', async () => {
    const created = await (await create({ name: 'Doomed' })).json();
    const res = await server.request(`/v1/personas/${created.id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    for (const method of ['GET', 'DELETE'] as const) {
      const again = await server.request(`/v1/personas/${created.id}`, { method });
      expect(again.status).toBe(404);
      expect(await again.json()).toEqual({ error: 404, message: `persona "${created.id}" not found` });
    }
    const patch = await server.request(`/v1/personas/${created.id}`, { method: 'PATCH', json: { name: 'x' } });
    expect(patch.status).toBe(404);
  });

  it('accepts GET and DELETE without a body whatever Content-Type says', async () => {
    const created = await (await create({ name: 'Lenient' })).json();
    const headers = { 'content-type': 'application/json' };
    expect((await server.request(`/v1/personas/${created.id}`, { headers })).status).toBe(200);
    expect((await server.request('/v1/personas', { headers: { 'content-type': 'text/plain' } })).status).toBe(200);
    expect((await server.request(`/v1/personas/${created.id}`, { method: 'DELETE', headers })).status).toBe(204);
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await server.request('/v1/personas', {
      method: 'POST',
      body: JSON.stringify({ name: 'Charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });

  it('handles 200 concurrent creates: all 201, all ids distinct', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => create({ name: `c${i}`, attributes: { i } })));
    expect(results.map((r) => r.status)).toEqual(Array(200).fill(201));
    const ids = new Set(await Promise.all(results.map(async (r) => (await r.json()).id)));
    expect(ids.size).toBe(200);
  });
});
