import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

const JAPANESE = '株式会社に連絡してください。サインインしてからログインしてください。';
const GERMAN = 'Der Kundenservice hilft allen Kunden per E-Mail. Service!';

describe.each(storageTargets)('personas with a locale on $engine', (target) => {
  let f: RefineFixture;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    f = await startRefineFixture({ target });
    const create = async (name: string, attributes: Record<string, unknown>) => {
      const res = await f.server.request('/v1/personas', { method: 'POST', json: { name, attributes } });
      expect(res.status).toBe(201);
      ids[name] = (await res.json()).id;
    };
    await create('ja', { locale: 'ja-JP', avoid: ['会社', 'ログイン'], vocabulary: { サインイン: 'ログオン' }, maxWords: 5 });
    await create('de', { locale: 'de-DE', avoid: ['Service'], vocabulary: { Kunden: 'Mitglieder' }, maxWords: 7 });
    // The base has no locale; its ja variant has one, and a check in the variant uses it.
    await create('multi', { avoid: ['会社'], maxWords: 20, variants: { ja: { locale: 'ja' } } });
  });
  afterAll(() => f.close());

  const check = (name: string, content: string, extra: Record<string, unknown> = {}) =>
    f.server.request('/v1/check', { method: 'POST', json: { personaId: ids[name], content, ...extra } });
  const found = async (res: Response, content: string) =>
    ((await res.json()) as { violations: { rule: string; message: string; start: number; end: number }[] }).violations.map(({ rule, message, start, end }) =>
      rule === 'maxWords' ? message : `${rule} ${content.slice(start, end)}`,
    );

  it('a Japanese persona: words counted and matched as ja segments them ("会社" is not inside "株式会社")', async () => {
    expect(await found(await check('ja', JAPANESE), JAPANESE)).toEqual(['has 17 words; the limit is 5', 'vocabulary サインイン', 'avoid ログイン']);
    const refined = await f.server.request('/v1/refine', { method: 'POST', json: { personaId: ids.ja, provider: 'rules', content: JAPANESE } });
    expect((await refined.json()).response).toBe('株式会社に連絡してください。ログオンしてからログインしてください。');
    expect(refined.headers.get('x-persona-violations')).toBe('avoid=1,maxWords=1');
  });

  it('a German persona: compounds are whole words ("Service" is not inside "Kundenservice")', async () => {
    expect(await found(await check('de', GERMAN), GERMAN)).toEqual(['has 8 words; the limit is 7', 'vocabulary Kunden', 'avoid Service']);
    // A stream cut inside words (every 3 characters) still finds the whole words; "Service!" is flagged, not fixed, so no repair call streams.
    f.fake.enqueue({ mode: 'ok', reply: GERMAN, pieceChars: 3 });
    const streamed = await f.server.request('/v1/refine', {
      method: 'POST', json: { personaId: ids.de, provider: 'openai', providerApiKey: callerKey('openai'), stream: true, content: GERMAN },
    });
    const events = parseEventStream(await streamed.text());
    const done = events.find((event) => event.event === 'done')!.data;
    expect(done.response).toBe(GERMAN.replace('allen Kunden', 'allen Mitglieder'));
    expect(done.violations).toEqual({ avoid: 1, maxWords: 1 });
    expect(JSON.stringify(f.fake.requests.at(-1)!.body)).toContain('Locale: de-DE');
  });

  it("a check in a variant with its own locale uses it; the base keeps the script-based matching", async () => {
    expect(await found(await check('multi', JAPANESE), JAPANESE)).toEqual(['has 32 words; the limit is 20', 'avoid 会社']);
    expect(await found(await check('multi', JAPANESE, { variant: 'ja' }), JAPANESE)).toEqual([]);
  });

  it('a locale Intl refuses is a 400 naming the key, kept as written otherwise', async () => {
    const refused = await f.server.request('/v1/personas', { method: 'POST', json: { name: 'x', attributes: { locale: 'de-DE-1996-1996' } } });
    expect(refused.status).toBe(400);
    expect((await refused.json()).message).toMatch(/^attributes\.locale must be a BCP 47 language tag/);
    const kept = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'x', attributes: { locale: 'de-de' } } })).json();
    expect(kept.attributes.locale).toBe('de-de');
  });
});
