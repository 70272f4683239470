import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { MERGES } from '../helpers/variant-merges.js';

const attributes = {
  description: 'Acme support, in English.',
  vocabulary: { customers: 'members' },
  avoid: ['synergy'],
  maxWords: 200,
  variants: {
    'de-DE': { description: 'Acme-Support auf Deutsch.', locale: 'de-DE', vocabulary: { Kunden: 'Mitglieder' }, avoid: ['Synergie'], signOff: 'Viele Grüße' },
    'support-chat': { maxWords: 5, maxSentences: null },
  },
};

describe.each(storageTargets)('persona variants on $engine', (target) => {
  let f: RefineFixture;
  let id: string;
  beforeAll(async () => {
    f = await startRefineFixture({ target });
    id = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Acme', attributes } })).json()).id;
  });
  afterAll(() => f.close());

  const post = (path: string, json: Record<string, unknown>, headers?: Record<string, string>) =>
    f.server.request(path, { method: 'POST', json, ...(headers ? { headers } : {}) });
  const refine = (json: Record<string, unknown>) => post('/v1/refine', { personaId: id, ...json });
  const lastSystemPrompt = () => JSON.stringify(f.fake.requests.at(-1)!.body);

  it('a rules refine merges the variant: its vocabulary and the base\'s both apply, its sign-off is added, and the answer names it', async () => {
    const res = await refine({ provider: 'rules', variant: 'de-DE', content: 'Liebe Kunden und customers.' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-persona-variant')).toBe('de-DE');
    expect(res.headers.get('x-persona-version')).toBe('1');
    expect((await res.json()).response).toBe('Liebe Mitglieder und members.\n\nViele Grüße');
    const base = await refine({ provider: 'rules', content: 'Liebe Kunden und customers.' });
    expect(base.headers.get('x-persona-variant')).toBeNull();
    expect((await base.json()).response).toBe('Liebe Kunden und members.');
  });

  it("a provider refine sends the variant's prompt (its locale's language), collected and streamed", async () => {
    const collected = await refine({ provider: 'openai', providerApiKey: callerKey('openai'), variant: 'de-DE', content: 'Hello customers.' });
    expect(collected.status).toBe(200);
    expect(collected.headers.get('x-persona-variant')).toBe('de-DE');
    expect(lastSystemPrompt()).toContain('Acme-Support auf Deutsch.');
    expect(lastSystemPrompt()).toContain('Locale: de-DE');
    expect(lastSystemPrompt()).toContain("Write in the persona's language");
    expect(lastSystemPrompt()).not.toContain('in English');

    const streamed = await refine({ provider: 'anthropic', providerApiKey: callerKey('anthropic'), variant: 'support-chat', stream: true, content: 'one two three four five six seven' });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('x-persona-variant')).toBe('support-chat');
    const done = parseEventStream(await streamed.text()).find((event) => event.event === 'done')!;
    expect(done.data.violations).toEqual({ maxWords: 1 });
  });

  it('a check uses the variant (the union of avoid lists) and names it', async () => {
    const checked = await post('/v1/check', { personaId: id, variant: 'de-DE', content: 'Synergie and synergy.\n\nViele Grüße' });
    expect(checked.status).toBe(200);
    expect(checked.headers.get('x-persona-variant')).toBe('de-DE');
    const verdict = await checked.json();
    expect(verdict.violations.map((v: { message: string }) => v.message)).toEqual(['uses banned phrase "Synergie"', 'uses banned phrase "synergy"']);
    const chat = await post('/v1/check', { personaId: id, variant: 'support-chat', content: 'one two three four five six' });
    expect((await chat.json()).violations.map((v: { rule: string }) => v.rule)).toEqual(['maxWords']);
  });

  it('a chat completion takes the variant from X-Persona-Variant or the body, and names it', async () => {
    const headers = { 'x-persona': id, 'x-provider-api-key': callerKey('openai') };
    const messages = [{ role: 'user', content: 'Hi' }];
    const byHeader = await post('/v1/chat/completions', { model: 'openai', messages }, { ...headers, 'x-persona-variant': 'de-DE' });
    expect(byHeader.status).toBe(200);
    expect(byHeader.headers.get('x-persona-variant')).toBe('de-DE');
    expect(lastSystemPrompt()).toContain('Acme-Support auf Deutsch.');
    const byBody = await post('/v1/chat/completions', { model: 'openai', messages, variant: 'support-chat', stream: true }, headers);
    expect(byBody.status).toBe(200);
    expect(byBody.headers.get('x-persona-variant')).toBe('support-chat');
    await byBody.text();
    const unknown = await post('/v1/chat/completions', { model: 'openai', messages, variant: 'fr-FR' }, headers);
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.message).toContain('known variants: de-DE, support-chat');
  });

  it('an unknown variant is a 400 listing the known ones, before any provider call; a malformed name is a 400', async () => {
    const before = f.fake.requestCount;
    for (const res of [
      await refine({ provider: 'openai', providerApiKey: callerKey('openai'), variant: 'fr-FR', content: 'x' }),
      await refine({ provider: 'rules', variant: 'fr-FR', content: 'x' }),
      await post('/v1/check', { personaId: id, variant: 'fr-FR', content: 'x' }),
    ]) {
      expect(res.status).toBe(400);
      expect((await res.json()).message).toBe(`unknown variant "fr-FR" of persona "${id}"; known variants: de-DE, support-chat`);
    }
    expect(f.fake.requestCount).toBe(before);
    const malformed = await refine({ provider: 'rules', variant: 'de DE', content: 'x' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).message).toContain('variant must be 1-40 letters');
  });

  it('GET /v1/personas/{id}/variants/{name} answers the merged attributes; 404 for an unknown persona or variant', async () => {
    const res = await f.server.request(`/v1/personas/${id}/variants/support-chat`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-persona-variant')).toBe('support-chat');
    expect(await res.json()).toEqual({
      id, name: 'Acme', version: 1, variant: 'support-chat',
      attributes: { description: 'Acme support, in English.', vocabulary: { customers: 'members' }, avoid: ['synergy'], maxWords: 5 },
    });
    const de = await (await f.server.request(`/v1/personas/${id}/variants/de-DE`)).json();
    expect(de.attributes.vocabulary).toEqual({ customers: 'members', Kunden: 'Mitglieder' });
    expect(de.attributes.avoid).toEqual(['synergy', 'Synergie']);
    expect((await f.server.request(`/v1/personas/${id}/variants/fr-FR`)).status).toBe(404);
    expect((await f.server.request('/v1/personas/nope/variants/de-DE')).status).toBe(404);
  });

  it('stores a variant of every kind of attribute and answers its merge as the catalogue says, each kind', async () => {
    const base = Object.fromEntries(Object.entries(MERGES).map(([key, { base }]) => [key, base]));
    const variant = Object.fromEntries(Object.entries(MERGES).map(([key, { variant }]) => [key, variant]));
    const created = await post('/v1/personas', { name: 'Every kind', attributes: { ...base, variants: { every: variant } } });
    expect(created.status).toBe(201);
    const { id: everyId } = await created.json();
    const merged = await (await f.server.request(`/v1/personas/${everyId}/variants/every`)).json();
    expect(merged.attributes).toEqual(Object.fromEntries(Object.entries(MERGES).map(([key, { merged }]) => [key, merged])));
  });

  it('a variant is versioned with its persona: a pinned version or label uses that version\'s variants', async () => {
    const { id: pid } = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'V', attributes: { variants: { short: { maxWords: 3 } } } } })).json();
    await f.server.request(`/v1/personas/${pid}/labels/production`, { method: 'PUT', json: { version: 1 } });
    await f.server.request(`/v1/personas/${pid}`, { method: 'PATCH', json: { attributes: { variants: { long: { maxWords: 300 } } } } });
    const content = 'one two three four five';
    const pinned = await post('/v1/check', { personaId: pid, personaLabel: 'production', variant: 'short', content });
    expect(pinned.headers.get('x-persona-version')).toBe('1');
    expect((await pinned.json()).passed).toBe(false);
    const newest = await post('/v1/check', { personaId: pid, variant: 'short', content });
    expect(newest.status).toBe(400);
    expect((await newest.json()).message).toContain('known variants: long');
    expect((await f.server.request(`/v1/personas/${pid}/variants/short?personaVersion=1`)).status).toBe(200);
    expect((await f.server.request(`/v1/personas/${pid}/variants/short`)).status).toBe(404);
  });

  it('an evaluation runs in the run\'s variant, a sample naming its own in that one; an unknown one is a 400 before the run', async () => {
    const samples = [
      { content: 'Liebe Kunden, hallo.' },
      { content: 'one two three four five six seven', variant: 'support-chat' },
      { content: 'Dear customers.', variant: 'de-DE', expect: { contains: ['Viele Grüße'] } },
    ];
    expect((await f.server.request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples } })).status).toBe(200);
    const read = await (await f.server.request(`/v1/personas/${id}/samples`)).json();
    expect(read.samples.map((sample: { variant?: string }) => sample.variant)).toEqual([undefined, 'support-chat', 'de-DE']);
    const started = await post(`/v1/personas/${id}/evals`, { provider: 'rules', variant: 'de-DE' });
    expect(started.status).toBe(202);
    const run = await started.json();
    expect(run.variant).toBe('de-DE');
    await expect.poll(async () => (await (await f.server.request(`/v1/personas/${id}/evals/${run.id}`)).json()).status, { interval: 20 }).toBe('completed');
    const done = await (await f.server.request(`/v1/personas/${id}/evals/${run.id}`)).json();
    expect(done.variant).toBe('de-DE');
    expect(done.results.map((result: { response: string }) => result.response)).toEqual([
      'Liebe Mitglieder, hallo.\n\nViele Grüße',
      'one two three four five six seven',
      'Dear members.\n\nViele Grüße',
    ]);
    expect(done.results.map((result: { passed: boolean }) => result.passed)).toEqual([true, false, true]);

    const unknownRun = await post(`/v1/personas/${id}/evals`, { provider: 'rules', variant: 'fr-FR' });
    expect(unknownRun.status).toBe(400);
    expect((await unknownRun.json()).message).toContain('known variants: de-DE, support-chat');
    await f.server.request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'x', variant: 'it-IT' }] } });
    const unknownSample = await post(`/v1/personas/${id}/evals`, { provider: 'rules' });
    expect(unknownSample.status).toBe(400);
    expect((await unknownSample.json()).message).toBe(`unknown variant "it-IT" of persona "${id}"; known variants: de-DE, support-chat`);
  });

  it('refuses a write whose variant is invalid or whose merge breaks a limit', async () => {
    const write = (variants: unknown, base: Record<string, unknown> = {}) =>
      f.server.request('/v1/personas', { method: 'POST', json: { name: 'Bad', attributes: { ...base, variants } } });
    expect((await write({ 'a b': {} })).status).toBe(400);
    expect((await write({ v: { maxWords: 'ten' } })).status).toBe(400);
    expect((await write({ v: { brand: 'Acme' } })).status).toBe(400);
    const many = (prefix: string) => Array.from({ length: 150 }, (_, i) => `${prefix}${i}`);
    const tooMany = await write({ big: { avoid: many('b') } }, { avoid: many('a') });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).message).toMatch(/^attributes\.variants\.big merged with the base: avoid must be/);
    expect((await f.server.request('/v1/personas', { method: 'POST', json: { name: 'L', attributes: { locale: 'de-1996-1996' } } })).status).toBe(400);
  });
});
