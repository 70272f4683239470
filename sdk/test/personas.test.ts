import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine, PersonaRefineError, PreconditionFailedError } from '../src/index.js';

describe('client.personas and client.check against a real server', () => {
  let server: TestServer;
  let client: PersonaRefine;
  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(() => server.close());

  it('creates a persona and returns exactly { id, name, attributes }, with its ETag on the side', async () => {
    const created = await client.personas.create({ name: '  Support bot ', attributes: { tone: 'warm', emoji: false } });
    expect(created).toEqual({ id: expect.any(String), name: 'Support bot', attributes: { tone: 'warm', emoji: false } });
    expect(created.etag).toMatch(/^"\d+"$/);
    expect(Object.keys(created)).toEqual(['id', 'name', 'attributes']);
    expect(JSON.parse(JSON.stringify(created))).toEqual({ id: created.id, name: 'Support bot', attributes: { tone: 'warm', emoji: false } });
  });

  it('defaults attributes to {} on create', async () => {
    expect((await client.personas.create({ name: 'Plain' })).attributes).toEqual({});
  });

  it('lists every persona of the account, oldest first', async () => {
    const fresh = await startTestServer();
    try {
      const own = new PersonaRefine({ apiKey: fresh.key, baseUrl: fresh.url });
      const a = await own.personas.create({ name: 'A' });
      const b = await own.personas.create({ name: 'B' });
      expect(await own.personas.list()).toEqual([a, b]);
    } finally {
      await fresh.close();
    }
  });

  it('gets one persona with its current ETag', async () => {
    const created = await client.personas.create({ name: 'Getter', attributes: { a: 1 } });
    const got = await client.personas.get(created.id);
    expect(got).toEqual(created);
    expect(got.etag).toBe(created.etag);
  });

  it('updates only the fields given and returns the new ETag', async () => {
    const created = await client.personas.create({ name: 'Before', attributes: { tone: 'warm' } });
    const updated = await client.personas.update(created.id, { name: 'After' });
    expect(updated).toEqual({ id: created.id, name: 'After', attributes: { tone: 'warm' } });
    expect(updated.etag).not.toBe(created.etag);
    expect(await client.personas.get(created.id)).toEqual(updated);
  });

  it('updates with a matching ifMatch', async () => {
    const created = await client.personas.create({ name: 'Guarded' });
    const updated = await client.personas.update(created.id, { attributes: { tone: 'dry' } }, { ifMatch: created.etag });
    expect(updated.attributes).toEqual({ tone: 'dry' });
  });

  it('throws PreconditionFailedError (412) when ifMatch is stale, and changes nothing', async () => {
    const created = await client.personas.create({ name: 'Contended' });
    await client.personas.update(created.id, { name: 'Changed elsewhere' });
    const error = await client.personas.update(created.id, { name: 'Mine' }, { ifMatch: created.etag }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ status: 412, kind: 'http', source: 'service' });
    expect((await client.personas.get(created.id)).name).toBe('Changed elsewhere');
  });

  it('deletes; the persona is then gone (404)', async () => {
    const created = await client.personas.create({ name: 'Doomed' });
    await expect(client.personas.delete(created.id)).resolves.toBeUndefined();
    await expect(client.personas.get(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.personas.delete(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('deletes with ifMatch, refusing a stale one', async () => {
    const created = await client.personas.create({ name: 'Conditional delete' });
    const current = await client.personas.update(created.id, { name: 'Renamed' });
    await expect(client.personas.delete(created.id, { ifMatch: created.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    await client.personas.delete(created.id, { ifMatch: current.etag });
    await expect(client.personas.get(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('escapes ids in the path', async () => {
    await expect(client.personas.get('../personas?x=1')).rejects.toMatchObject({ status: 404 });
  });

  it('check lints text against the persona\'s rules, without a provider', async () => {
    const persona = await client.personas.create({ name: 'Rules', attributes: { avoid: ['synergy'] } });
    const content = 'Pure synergy.';
    const verdict = await client.check({ personaId: persona.id, content });
    expect(verdict.passed).toBe(false);
    expect(verdict.violations.map((v) => [v.rule, content.slice(v.start, v.end)])).toEqual([['avoid', 'synergy']]);
    expect(await client.check({ personaId: persona.id, content: 'All good.' })).toEqual({
      passed: true, score: 100, scores: { rules: 100, facts: 100 }, violations: [], warnings: [],
    });
    await expect(client.check({ personaId: 'nope', content: 'x' })).rejects.toMatchObject({ status: 404, source: 'service' });
  });

  it('check with original reports what a rewrite lost, as typed violations with offsets into original', async () => {
    const persona = await client.personas.create({ name: 'Keeps facts', attributes: { avoid: ['synergy'] } });
    const original = 'Hi {{first_name}}, order 48213 ships on {{ship_date}}.';
    const verdict = await client.check({ personaId: persona.id, content: 'Hey {{first_name}}, pure synergy: it ships soon.', original });
    expect(verdict.passed).toBe(false);
    const lost: { rule: string; start: number; end: number }[] = verdict.violations.filter((v) => v.rule === 'preserve');
    expect(lost.map((v) => original.slice(v.start, v.end))).toEqual(['48213', '{{ship_date}}']);
    expect(verdict.violations.map((v) => v.rule)).toEqual(['avoid', 'preserve', 'preserve']);
    expect(await client.check({ personaId: persona.id, content: 'Order 48213: {{first_name}}, {{ship_date}}.', original })).toEqual({
      passed: true, score: 100, scores: { rules: 100, facts: 100 }, violations: [], warnings: [],
    });
  });

  it.each(['', '/', '/v1', '/v1/'])('accepts baseUrl with the suffix "%s"', async (suffix) => {
    const other = new PersonaRefine({ apiKey: server.key, baseUrl: server.url + suffix });
    expect(Array.isArray(await other.personas.list())).toBe(true);
  });

  it('rejects a missing apiKey or a baseUrl that is not http(s)', () => {
    expect(() => new PersonaRefine({ apiKey: '', baseUrl: server.url })).toThrow(/apiKey/);
    expect(() => new PersonaRefine({ apiKey: 'k', baseUrl: '127.0.0.1:8080' })).toThrow(/baseUrl/);
  });
});
