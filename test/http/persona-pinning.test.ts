import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

const v1 = { description: 'voice-one', vocabulary: { customers: 'members' } };
const v2 = { description: 'voice-two', vocabulary: { customers: 'clients' }, avoid: ['hello'] };

describe.each(storageTargets)('pinning refine and check to a persona version on $engine', (target) => {
  let f: RefineFixture;
  let id: string;
  let otherKey: string;
  beforeAll(async () => {
    f = await startRefineFixture({ target });
    otherKey = await f.server.createAccount('other');
  });
  afterAll(() => f.close());

  const request = (path: string, json: Record<string, unknown>, key?: string) =>
    f.server.request(path, { method: 'POST', json: { personaId: id, content: 'Dear customers, hello.', ...json }, key });
  const rules = (pin: Record<string, unknown> = {}, key?: string) => request('/v1/refine', { provider: 'rules', ...pin }, key);
  const check = (pin: Record<string, unknown> = {}) => request('/v1/check', pin);
  const systemPromptSent = () => JSON.stringify(f.fake.requests.at(-1)!.body);

  it('uses the newest version without a pin, and says which in X-Persona-Version', async () => {
    id = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Pinned', attributes: v1 } })).json()).id;
    const first = await rules();
    expect(first.status).toBe(200);
    expect(first.headers.get('x-persona-version')).toBe('1');
    expect((await first.json()).response).toBe('Dear members, hello.');
    await f.server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: v2 } });
    const second = await rules();
    expect(second.headers.get('x-persona-version')).toBe('2');
    expect((await second.json()).response).toBe('Dear clients, hello.');
    const latest = await rules({ personaLabel: 'latest' });
    expect(latest.headers.get('x-persona-version')).toBe('2');
  });

  it('a refine pinned to a version keeps using it after the persona is edited', async () => {
    const res = await rules({ personaVersion: 1 });
    expect(res.headers.get('x-persona-version')).toBe('1');
    expect((await res.json()).response).toBe('Dear members, hello.');
    // "hello" is banned from version 2 on only.
    const checked = await check({ personaVersion: 1, content: 'Dear members, hello.' });
    expect(checked.headers.get('x-persona-version')).toBe('1');
    expect((await checked.json()).passed).toBe(true);
    const checkedNewest = await check({ content: 'Dear members, hello.' });
    expect(checkedNewest.headers.get('x-persona-version')).toBe('2');
    expect((await checkedNewest.json()).violations.map((v: { rule: string }) => v.rule)).toEqual(['avoid']);
  });

  it('a refine pinned to a label keeps the old version after an edit and moves with the label', async () => {
    await f.server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version: 2 } });
    const provider = { provider: 'openai', providerApiKey: callerKey('openai'), personaLabel: 'production' };
    const before = await request('/v1/refine', provider);
    expect(before.status).toBe(200);
    expect(before.headers.get('x-persona-version')).toBe('2');
    expect(systemPromptSent()).toContain('voice-two');

    // An edit makes version 3; production stays on 2.
    await f.server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: { description: 'voice-three' } } });
    const afterEdit = await request('/v1/refine', provider);
    expect(afterEdit.headers.get('x-persona-version')).toBe('2');
    expect(systemPromptSent()).toContain('voice-two');
    expect(systemPromptSent()).not.toContain('voice-three');
    expect((await rules({ personaLabel: 'production' })).headers.get('x-persona-version')).toBe('2');

    // Rolling back: the label moves to 1, and the pinned refine follows it.
    await f.server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version: 1 } });
    const afterMove = await request('/v1/refine', provider);
    expect(afterMove.headers.get('x-persona-version')).toBe('1');
    expect(systemPromptSent()).toContain('voice-one');
    const unpinned = await request('/v1/refine', { provider: 'openai', providerApiKey: callerKey('openai') });
    expect(unpinned.headers.get('x-persona-version')).toBe('3');
    expect(systemPromptSent()).toContain('voice-three');
  });

  it('400 for both personaVersion and personaLabel, and for a malformed label; nothing reaches the provider', async () => {
    const before = f.fake.requestCount;
    for (const both of [
      await request('/v1/refine', { provider: 'openai', providerApiKey: callerKey('openai'), personaVersion: 1, personaLabel: 'production' }),
      await check({ personaVersion: 1, personaLabel: 'production' }),
    ]) {
      expect(both.status).toBe(400);
      expect(await both.json()).toEqual({ error: 400, message: 'give personaVersion or personaLabel, not both' });
    }
    const bad = await rules({ personaLabel: 'Prod!' });
    expect(bad.status).toBe(400);
    expect((await rules({ personaVersion: 0 })).status).toBe(400);
    expect((await rules({ personaVersion: 1e300 })).status).toBe(400);
    expect((await rules({ personaVersion: '1' })).status).toBe(400);
    expect(f.fake.requestCount).toBe(before);
  });

  it('404 naming an unknown version or label; 404 for another account\'s persona whatever the pin', async () => {
    const before = f.fake.requestCount;
    const version = await request('/v1/refine', { provider: 'openai', providerApiKey: callerKey('openai'), personaVersion: 42 });
    expect(version.status).toBe(404);
    expect(await version.json()).toEqual({ error: 404, message: `version 42 of persona "${id}" not found` });
    const label = await check({ personaLabel: 'canary' });
    expect(label.status).toBe(404);
    expect(await label.json()).toEqual({ error: 404, message: `label "canary" of persona "${id}" not found` });
    for (const pin of [{}, { personaVersion: 1 }, { personaLabel: 'production' }]) {
      const res = await rules(pin, otherKey);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 404, message: `persona "${id}" not found` });
    }
    expect(f.fake.requestCount).toBe(before);
  });
});
