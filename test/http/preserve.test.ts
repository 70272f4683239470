/** The `preserve` rule through the real server and the fake provider: refine, repair, report, check. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const TEMPLATE = 'Hi {{first_name}}, your order 48213 of $1,250.00 ships on {{ship_date}}. Track it at https://acme.com/t/48213.';

describe('preserve: numbers, links, code and placeholders survive a refine', () => {
  let f: RefineFixture;
  let personaId: string;
  let optedOutId: string;
  let avoidingId: string;
  const refine = (content: string, id = personaId) =>
    f.server.request('/v1/refine', {
      method: 'POST',
      json: { provider: 'anthropic', providerApiKey: callerKey('anthropic'), personaId: id, content },
    });
  const check = (json: Record<string, unknown>) => f.server.request('/v1/check', { method: 'POST', json });

  beforeAll(async () => {
    f = await startRefineFixture();
    const create = async (attributes: Record<string, unknown>) =>
      (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Notifications', attributes } })).json()).id;
    personaId = await create({ tone: 'friendly' });
    optedOutId = await create({ tone: 'friendly', enforce: { preserve: false } });
    avoidingId = await create({ tone: 'friendly', avoid: ['synergy'] });
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('makes no repair call when the answer keeps every item, however it rephrases around them', async () => {
    const answer = 'Hey {{first_name}}! Order 48213 ($1250.00) is on its way {{ship_date}}: https://acme.com/t/48213';
    f.fake.setBehaviour({ mode: 'ok', reply: answer });
    const res = await refine(TEMPLATE);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: answer });
    expect(res.headers.get('x-persona-violations')).toBeNull();
    expect(f.fake.requestCount).toBe(1);
  });

  it('an answer that drops a number triggers exactly one repair call naming it, and reports nothing once it is back', async () => {
    const repaired = 'Hey {{first_name}}! Order 48213 ($1,250.00) ships {{ship_date}}: https://acme.com/t/48213';
    f.fake.enqueue({ mode: 'ok', reply: 'Hey {{first_name}}! Your order of $1,250.00 ships {{ship_date}}: https://acme.com/t/48213' });
    f.fake.enqueue({ mode: 'ok', reply: repaired });
    const res = await refine(TEMPLATE);
    expect(await res.json()).toEqual({ response: repaired });
    expect(res.headers.get('x-persona-violations')).toBeNull();
    expect(f.fake.requestCount).toBe(2);
    const [first, repair] = f.fake.requests;
    expect(first!.userText).not.toContain('Put back');
    expect(repair!.userText).toContain(
      '- Put back what the text lost from the original, exactly as written there: ' +
        'the number "48213" (in "Hi {{first_name}}, your order 48213 of $1,250.00 ships on…").',
    );
    // Only what was lost is named; the repair call rewrites the first answer, not the content again.
    expect(repair!.userText).not.toMatch(/placeholder|the link/);
    expect(repair!.userText).toContain('Your order of $1,250.00 ships');
  });

  it('reports preserve in X-Persona-Violations when the repair drops it too (still one repair call)', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hey there! Your order ships soon: https://acme.com/t/48213' });
    const res = await refine(TEMPLATE);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ response: 'Hey there! Your order ships soon: https://acme.com/t/48213' });
    expect(res.headers.get('x-persona-violations')).toBe('preserve=4');
    expect(f.fake.requestCount).toBe(2);
    expect(f.fake.requests[1]!.userText).toContain(
      'the placeholder "{{first_name}}" (in "Hi {{first_name}}, your order 48213 of…"); the number "48213"',
    );
  });

  it('shares the one repair call with the other model-only rules', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'Pure synergy: order 48213 ships.' });
    f.fake.enqueue({ mode: 'ok', reply: 'Great news: order 48213 ships.' });
    const res = await refine('Order 48213 of 2 items ships today.', avoidingId);
    expect(res.headers.get('x-persona-violations')).toBe('preserve=1');
    expect(f.fake.requestCount).toBe(2);
    const repair = f.fake.requests[1]!.userText;
    expect(repair).toContain('- Remove these banned phrases by rephrasing: "synergy".');
    expect(repair).toContain('- Put back what the text lost from the original, exactly as written there: the number "2"');
  });

  it('code and fenced blocks must come back verbatim', async () => {
    const content = 'Run `acme sync --all` first.\n\n```sh\nacme deploy --region eu-1\n```';
    f.fake.setBehaviour({ mode: 'ok', reply: 'First run acme sync.\n\n```bash\nacme deploy --region eu-west-1\n```' });
    const res = await refine(content);
    expect(res.headers.get('x-persona-violations')).toBe('preserve=2');
    expect(f.fake.requests[1]!.userText).toContain('the code "`acme sync --all`" (in "Run `acme sync --all` first."); the code block "```sh\\nacme deploy --region eu-1…"');
  });

  it('"enforce": { "preserve": false } turns it off: no repair call, nothing reported', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hey there! Your order ships soon.' });
    const res = await refine(TEMPLATE, optedOutId);
    expect(await res.json()).toEqual({ response: 'Hey there! Your order ships soon.' });
    expect(res.headers.get('x-persona-violations')).toBeNull();
    expect(f.fake.requestCount).toBe(1);
  });

  it('a stream reports what the answer lost in done.violations (the text is already shown: no repair call)', async () => {
    const stream = async (id: string) => {
      const res = await f.server.request('/v1/refine', {
        method: 'POST',
        json: { provider: 'anthropic', providerApiKey: callerKey('anthropic'), personaId: id, content: TEMPLATE, stream: true },
      });
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      return parseEventStream(await res.text()).at(-1)!;
    };
    const lossy = 'Hey {{first_name}}! Your order ships soon: https://acme.com/t/48213';
    f.fake.setBehaviour({ mode: 'ok', reply: lossy, pieceChars: 5 });
    const done = await stream(personaId);
    expect(done).toMatchObject({ event: 'done', data: { response: lossy, violations: { preserve: 3 } } });
    expect(f.fake.requestCount).toBe(1);
    expect((await stream(optedOutId)).data.violations).toEqual({});
  });

  it('provider "rules" keeps every item (its fixes never touch one)', async () => {
    const res = await f.server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId, content: TEMPLATE } });
    expect(await res.json()).toEqual({ response: TEMPLATE });
    expect(res.headers.get('x-persona-violations')).toBeNull();
  });

  describe('POST /v1/check with original', () => {
    it('reports every item of original missing from content, with its span in original', async () => {
      const content = 'Hey {{first_name}}, your order ships soon: https://acme.com/t/48213';
      const res = await check({ personaId, content, original: TEMPLATE });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.passed).toBe(false);
      expect(body.violations).toEqual([
        { rule: 'preserve', severity: 'required', message: 'is missing the number "48213" of the original', start: 30, end: 35 },
        { rule: 'preserve', severity: 'required', message: 'is missing the number "1,250.00" of the original', start: 40, end: 48 },
        { rule: 'preserve', severity: 'required', message: 'is missing the placeholder "{{ship_date}}" of the original', start: 58, end: 71 },
      ]);
      expect(body.violations.map((v: { start: number; end: number }) => TEMPLATE.slice(v.start, v.end))).toEqual(['48213', '1,250.00', '{{ship_date}}']);
      expect(f.fake.requestCount).toBe(0);
    });

    it('passes a rewrite that kept everything, and checks nothing against an original it was not given', async () => {
      const kept = 'Hey {{first_name}}! Order 48213 ($1250.00) is on its way {{ship_date}}: acme.com/t/48213';
      expect(await (await check({ personaId, content: kept, original: TEMPLATE })).json()).toEqual({ passed: true, score: 100, scores: { rules: 100, facts: 100 }, violations: [], warnings: [] });
      expect(await (await check({ personaId, content: 'Hello' })).json()).toEqual({ passed: true, score: 100, scores: { rules: 100, facts: 100 }, violations: [], warnings: [] });
      expect(await (await check({ personaId, content: 'Hello', original: '' })).json()).toEqual({ passed: true, score: 100, scores: { rules: 100, facts: 100 }, violations: [], warnings: [] });
    });

    it('lists the text rules first (offsets in content), then the lost items (offsets in original)', async () => {
      const body = await (await check({ personaId: avoidingId, content: 'Pure synergy.', original: 'Order 7: synergy.' })).json();
      expect(body.violations).toEqual([
        { rule: 'avoid', severity: 'required', message: 'uses banned phrase "synergy"', start: 5, end: 12 },
        { rule: 'preserve', severity: 'required', message: 'is missing the number "7" of the original', start: 6, end: 7 },
      ]);
    });

    it('follows the persona: nothing reported when it turns preserve off', async () => {
      expect(await (await check({ personaId: optedOutId, content: 'Hello', original: TEMPLATE })).json()).toEqual({ passed: true, score: 100, scores: { rules: 100, facts: 100 }, violations: [], warnings: [] });
    });

    it('validates original like content: a string of at most 100,000 characters', async () => {
      const tooLong = await check({ personaId, content: 'x', original: 'y'.repeat(100_001) });
      expect(tooLong.status).toBe(400);
      expect(await tooLong.json()).toEqual({ error: 400, message: expect.stringMatching(/^original must .*100000/) });
      const notString = await check({ personaId, content: 'x', original: 42 });
      expect(notString.status).toBe(400);
      expect((await notString.json()).message).toMatch(/^original must be a string/);
    });
  });
});
