/** The `terms` attribute and rule through the real server and the fake provider, on both engines: writes, refine, stream, check. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deltasOf, parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

const TERMS = [
  { term: 'sign-in', use: 'preferred', replaces: ['login', 'log-in'] },
  { term: 'utilize', use: 'forbidden', suggest: 'use' },
  { term: 'Acme Cloud', use: 'keep', note: 'product name, never translated' },
  { term: 'copy', use: 'preferred', replaces: ['duplicate'] },
  { term: 'OK', use: 'preferred', replaces: ['Okay'], caseSensitive: true },
];
const CONTENT = 'Log in to Acme Cloud to see your login history.';

/** A term base of `count` entries, the uses in turn, `{ term: "term<i> x" }`. */
const termBase = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ term: `term${i} x`, use: ['forbidden', 'keep', 'preferred'][i % 3], ...(i % 3 === 2 ? { replaces: [`old${i}`] } : {}) }));

describe.each(storageTargets)('terms ($engine)', (target) => {
  let f: RefineFixture;
  let personaId: string;
  const create = (attributes: Record<string, unknown>) => f.server.request('/v1/personas', { method: 'POST', json: { name: 'Terms', attributes } });
  const createId = async (attributes: Record<string, unknown>) => ((await (await create(attributes)).json()) as { id: string }).id;
  const refine = (extra: Record<string, unknown> = {}, id = personaId) =>
    f.server.request('/v1/refine', { method: 'POST', json: { provider: 'anthropic', providerApiKey: callerKey('anthropic'), personaId: id, content: CONTENT, ...extra } });
  const check = async (json: Record<string, unknown>) => {
    const res = await f.server.request('/v1/check', { method: 'POST', json });
    expect(res.status).toBe(200);
    return (await res.json()) as { passed: boolean; violations: { rule: string; severity: string; message: string; start: number; end: number; term?: string }[] };
  };

  beforeAll(async () => {
    f = await startRefineFixture({ target });
    personaId = await createId({ tone: 'friendly', terms: TERMS });
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  describe('writes', () => {
    it('stores a term base verbatim and answers it as written', async () => {
      const res = await f.server.request(`/v1/personas/${personaId}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { attributes: unknown }).attributes).toEqual({ tone: 'friendly', terms: TERMS });
    });

    it('accepts 2,000 terms and refuses 2,001 with a 400 naming the limit', async () => {
      const full = await create({ terms: termBase(2000) });
      expect(full.status).toBe(201);
      const over = await create({ terms: termBase(2001) });
      expect(over.status).toBe(400);
      expect(((await over.json()) as { message: string }).message).toBe('attributes.terms must have at most 2000 items');
    });

    it.each([
      ['a use of none of the three', [{ term: 'a', use: 'preferred' }, { term: 'b', use: 'banned' }], 'attributes.terms.1.use must be one of "preferred", "forbidden", "keep"'],
      ['an entry without its term', [{ use: 'keep' }], 'attributes.terms.0.term is required'],
      ['an unknown field', [{ term: 'a', use: 'keep', colour: 'red' }], 'unknown field "colour" in attributes.terms.0'],
      ['a huge term', [{ term: 'x'.repeat(100_000), use: 'forbidden' }], 'attributes.terms.0.term must be at most 100 characters'],
      ['an empty term', [{ term: '', use: 'forbidden' }], 'attributes.terms.0.term must not be empty'],
      ['a huge replaced word', [{ term: 'a', use: 'preferred', replaces: ['ok', 'y'.repeat(5000)] }], 'attributes.terms.0.replaces.1 must be at most 100 characters'],
      ['21 replaced words', [{ term: 'a', use: 'preferred', replaces: Array.from({ length: 21 }, (_, i) => `w${i}`) }], 'attributes.terms.0.replaces must have at most 20 items'],
      ['a long note', [{ term: 'a', use: 'keep', note: 'n'.repeat(501) }], 'attributes.terms.0.note must be at most 500 characters'],
      ['a caseSensitive string', [{ term: 'a', use: 'keep', caseSensitive: 'yes' }], 'attributes.terms.0.caseSensitive must be a boolean'],
      ['forms of another kind', [{ term: 'a', use: 'keep', forms: 'stemmed' }], 'attributes.terms.0.forms must be one of "exact", "inflected"'],
      ['an entry that is a string', ['login'], 'attributes.terms.0 must be an object'],
    ])('refuses %s with a 400 naming the entry and field', async (_, terms, message) => {
      const res = await create({ terms });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe(message);
    });

    it('refuses a term base that is not a list with its shapes, and a term base past its 256 KiB', async () => {
      const notList = await create({ terms: 'login' });
      expect(notList.status).toBe(400);
      expect(((await notList.json()) as { message: string }).message).toMatch(/^attributes\.terms must be a list of at most 2000 entries/);
      const heavy = termBase(1500).map((entry) => ({ ...entry, note: 'n'.repeat(200) }));
      const res = await create({ terms: heavy });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe('attributes.terms must be at most 256 KiB when serialized as JSON');
    });
  });

  describe('refine', () => {
    it('lists the terms in the prompt, rewrites preferred ones with their inflections, and repairs a forbidden and a lost kept term in one call', async () => {
      f.fake.enqueue({ mode: 'ok', reply: 'Sign in to see your Logins and the login’s page; we utilize duplicates and okay ones.' });
      f.fake.enqueue({ mode: 'ok', reply: 'Sign in to Acme Cloud to see your logins; we use duplicates.' });
      const res = await refine();
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ response: 'Sign in to Acme Cloud to see your sign-ins; we use copies.' });
      expect(res.headers.get('x-persona-violations')).toBeNull();
      expect(f.fake.requestCount).toBe(2);
      const [first, repair] = f.fake.requests;
      const prompt = JSON.stringify(first!.body);
      expect(prompt).toContain('- use \\"sign-in\\" instead of \\"login\\", \\"log-in\\"');
      expect(prompt).toContain('- never use \\"utilize\\"; write \\"use\\" instead');
      expect(prompt).toContain('- keep \\"Acme Cloud\\" exactly as written wherever the text has it: never translate or respell it (note: \\"product name, never translated\\")');
      expect(repair!.userText).toContain('- The text uses the forbidden term "utilize"; write "use" instead.');
      expect(repair!.userText).toContain('- The text lost the term "Acme Cloud" of the original; keep it exactly as written.');
      // The repair call rewrites the fixed first answer: inflected preferred terms, the case-sensitive one left alone.
      expect(repair!.userText).toContain('Sign in to see your Sign-ins and the sign-in’s page; we utilize copies and okay ones.');
    });

    it('reports what the repair left in X-Persona-Violations, and enforce turns the rule off or makes it recommended', async () => {
      f.fake.setBehaviour({ mode: 'ok', reply: 'Sign in to see your history; we utilize it.' });
      const res = await refine();
      expect(await res.json()).toEqual({ response: 'Sign in to see your history; we utilize it.' });
      expect(res.headers.get('x-persona-violations')).toBe('terms=2');
      expect(f.fake.requestCount).toBe(2);

      const off = await createId({ terms: TERMS, enforce: { terms: false } });
      f.fake.reset();
      f.fake.setBehaviour({ mode: 'ok', reply: 'Your logins; we utilize it.' });
      const unchecked = await refine({}, off);
      expect(await unchecked.json()).toEqual({ response: 'Your logins; we utilize it.' });
      expect(f.fake.requestCount).toBe(1);
    });

    it('lists at most 150 entries of a 2,000-term base in the prompt, and says how many more the rules check', async () => {
      const id = await createId({ terms: termBase(2000) });
      f.fake.setBehaviour({ mode: 'ok', reply: 'Fine.' });
      expect((await refine({}, id)).status).toBe(200);
      const system = (f.fake.requests[0]!.body as { system: unknown }).system;
      const text = typeof system === 'string' ? system : JSON.stringify(system);
      expect(text).toContain('- never use "term0 x"');
      expect(text).toContain('- use "term2 x" instead of "old2"');
      // 150 entries or 6,000 characters, whichever comes first: here the characters.
      const listed = text.split('\n').filter((line) => /^- (never use|keep|use) "term\d+ x"/.test(line)).length;
      expect(listed).toBeGreaterThan(100);
      expect(listed).toBeLessThanOrEqual(150);
      expect(text).toContain(`- and ${2000 - listed} more terms of the term base, checked after writing`);
      expect(text).not.toContain(`"term${listed} x"`);
      expect(text.length).toBeLessThan(12_000);
    });

    it('names at most 30 term findings in the repair call, however many the answer has', async () => {
      const words = Array.from({ length: 40 }, (_, i) => `banned${i}`);
      const id = await createId({ terms: words.map((term) => ({ term, use: 'forbidden' })) });
      f.fake.setBehaviour({ mode: 'ok', reply: words.join(' ') });
      const res = await refine({}, id);
      expect(res.headers.get('x-persona-violations')).toBe('terms=40');
      const repair = f.fake.requests[1]!.userText;
      expect(repair.match(/- The text uses the forbidden term/g)).toHaveLength(30);
      expect(repair).toContain('- The text uses the forbidden term "banned29".');
      expect(repair).toContain("- And 10 more of the term base's entries, as its list in the persona says.");
    });

    it('checks a kept term with preserve off and no other rule, streamed or not', async () => {
      const id = await createId({ terms: [{ term: 'Acme Cloud', use: 'keep' }], enforce: { preserve: false } });
      f.fake.setBehaviour({ mode: 'ok', reply: 'Sign in to see your history.' });
      const res = await refine({}, id);
      expect(res.headers.get('x-persona-violations')).toBe('terms=1');
      expect(f.fake.requestCount).toBe(2);
      expect(f.fake.requests[1]!.userText).toContain('- The text lost the term "Acme Cloud" of the original; keep it exactly as written.');
      const done = parseEventStream(await (await refine({ stream: true }, id)).text()).at(-1)!;
      expect(done.data).toMatchObject({ response: 'Sign in to see your history.', violations: { terms: 1 } });
    });

    it('streams the same text as the non-streamed refine, and reports forbidden and lost terms in done.violations', async () => {
      const answer = 'Our Logins page: log-ins and duplicates.\n\nWe utilize the login’s history, OK?';
      const expected = 'Our Sign-ins page: sign-ins and copies.\n\nWe utilize the sign-in’s history, OK?';
      for (const pieceChars of [1, 3, 7]) {
        f.fake.reset();
        f.fake.setBehaviour({ mode: 'ok', reply: answer, pieceChars });
        const res = await refine({ stream: true });
        const events = parseEventStream(await res.text());
        const done = events.at(-1)!;
        expect(done.event).toBe('done');
        expect(deltasOf(events).join('')).toBe(expected);
        expect(done.data).toMatchObject({ response: expected, violations: { terms: 2 } });
      }
      f.fake.reset();
      f.fake.setBehaviour({ mode: 'ok', reply: answer });
      expect(await (await f.server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId, content: answer } })).json()).toEqual({ response: expected });
    });
  });

  it('an evaluation result carries each term finding with its term', async () => {
    const id = await createId({ terms: TERMS });
    expect((await f.server.request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'Tell them.' }] } })).status).toBe(200);
    f.fake.setBehaviour({ mode: 'ok', reply: 'We utilize it.' });
    const started = await f.server.request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'anthropic', providerApiKey: callerKey('anthropic') } });
    expect(started.status).toBe(202);
    const evalId = ((await started.json()) as { id: string }).id;
    const read = async () => (await (await f.server.request(`/v1/personas/${id}/evals/${evalId}`)).json()) as { status: string; results: { violations: unknown[] }[] };
    await expect.poll(async () => (await read()).status, { timeout: 30_000 }).toBe('completed');
    expect((await read()).results[0]!.violations).toEqual([
      { rule: 'terms', severity: 'required', message: 'uses the forbidden term "utilize"; write "use" instead', start: 3, end: 10, term: 'utilize' },
    ]);
  });

  describe('POST /v1/check', () => {
    it('reports each use with rule terms and its term, offsets into content (into original for a lost kept term)', async () => {
      const content = 'Logins fail; we utilized the duplicate and okay. acme cloud is down.';
      const original = 'Acme Cloud fails.';
      const body = await check({ personaId, content, original });
      expect(body.passed).toBe(false);
      expect(body.violations).toEqual([
        { rule: 'terms', severity: 'required', message: 'uses "Logins"; prefer "Sign-ins"', start: 0, end: 6, term: 'sign-in' },
        { rule: 'terms', severity: 'required', message: 'uses the forbidden term "utilized"; write "use" instead', start: 16, end: 24, term: 'utilize' },
        { rule: 'terms', severity: 'required', message: 'uses "duplicate"; prefer "copy"', start: 29, end: 38, term: 'copy' },
        { rule: 'terms', severity: 'required', message: 'lost the term "Acme Cloud" of the original; keep it exactly as written', start: 0, end: 10, term: 'Acme Cloud' },
      ]);
      expect(original.slice(0, 10)).toBe('Acme Cloud');
      expect(f.fake.requestCount).toBe(0);
    });

    it('matches inflections only where forms allow, and case only where caseSensitive says', async () => {
      const id = await createId({
        terms: [
          { term: 'sign-in', use: 'preferred', replaces: ['login'], forms: 'exact' },
          { term: 'Widget', use: 'forbidden' },
          { term: 'create', use: 'forbidden', suggest: 'make' },
          { term: 'GO', use: 'forbidden', caseSensitive: true },
          { term: 'acme', use: 'keep', caseSensitive: false },
        ],
      });
      const body = await check({ personaId: id, content: 'logins, login, Widgets, widget, creates, created, creating, go, GO, ACME', original: 'Acme and acme' });
      expect(body.violations.map((v) => [v.term, v.message])).toEqual([
        ['sign-in', 'uses "login"; prefer "sign-in"'],
        ['Widget', 'uses the forbidden term "widget"'],
        ['create', 'uses the forbidden term "creates"; write "make" instead'],
        ['create', 'uses the forbidden term "created"; write "make" instead'],
        ['create', 'uses the forbidden term "creating"; write "make" instead'],
        ['GO', 'uses the forbidden term "GO"'],
        ['acme', 'lost the term "acme" of the original (2 times there, 1 here); keep it exactly as written'],
      ]);
    });

    it('weighs findings by enforce: recommended findings pass the check', async () => {
      const id = await createId({ terms: TERMS, enforce: { terms: 'recommended' } });
      const body = await check({ personaId: id, content: 'We utilize it.' });
      expect(body.passed).toBe(true);
      expect(body.violations).toEqual([
        { rule: 'terms', severity: 'recommended', message: 'uses the forbidden term "utilize"; write "use" instead', start: 3, end: 10, term: 'utilize' },
      ]);
    });

    it('matches by the words of the persona\'s locale: German compounds whole, Japanese by its words', async () => {
      const de = await createId({ locale: 'de-DE', terms: [{ term: 'Mitglied', use: 'preferred', replaces: ['Kunde'] }, { term: 'Service', use: 'forbidden' }] });
      const german = await check({ personaId: de, content: 'Der Kundenservice hilft jedem Kunde. Service!' });
      expect(german.violations.map((v) => [v.message, v.start])).toEqual([['uses "Kunde"; prefer "Mitglied"', 30], ['uses the forbidden term "Service"', 37]]);
      const terms = [{ term: '会社', use: 'forbidden', suggest: '企業' }, { term: 'Acme Cloud', use: 'keep' }, { term: 'サインイン', use: 'preferred', replaces: ['ログイン'] }];
      const content = '株式会社にご連絡ください。会社のAcme Cloudを使う。ログインしてください。';
      const ja = await check({ personaId: await createId({ locale: 'ja', terms }), content, original: 'Acme Cloudで' });
      expect(ja.violations.map((v) => [v.message, v.start])).toEqual([['uses the forbidden term "会社"; write "企業" instead', 13], ['uses "ログイン"; prefer "サインイン"', 30]]);
      // Without a locale, each character of a script written without spaces is a word: 会社 is found inside 株式会社 too.
      const byScript = await check({ personaId: await createId({ terms }), content });
      expect(byScript.violations.map((v) => v.start)).toEqual([2, 13, 30]);
    });

    it('checks all 2,000 terms of a full term base, the last one too', async () => {
      const id = await createId({ terms: termBase(2000) });
      const body = await check({ personaId: id, content: 'About term1998 x and old1997, and term1999 x.', original: 'Keep term1999 x and term1 x.' });
      expect(body.violations.map((v) => v.term)).toEqual(['term1998 x', 'term1997 x', 'term1 x']);
      expect(body.violations[1]!.message).toBe('uses "old1997"; prefer "term1997 x"');
    });
  });
});
