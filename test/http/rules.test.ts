import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const RULES = {
  tone: 'friendly',
  vocabulary: { customers: 'members' },
  casing: ['Acme Cloud'],
  avoid: ['synergy'],
  emoji: 'none',
  signOff: 'Cheers,\nThe Acme team',
  maxWords: 40,
};
const SIGNED = '\n\nCheers,\nThe Acme team';

describe('persona rules enforced after generation', () => {
  let f: RefineFixture;
  let personaId: string;
  let optedOutId: string;
  const refine = (content: string, extra: Record<string, unknown> = {}) =>
    f.server.request('/v1/refine', {
      method: 'POST',
      json: { provider: 'anthropic', providerApiKey: callerKey('anthropic'), personaId, content, ...extra },
    });

  beforeAll(async () => {
    f = await startRefineFixture();
    const create = async (attributes: Record<string, unknown>) =>
      (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Acme support', attributes } })).json()).id;
    personaId = await create(RULES);
    optedOutId = await create({ ...RULES, enforce: false });
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('fixes vocabulary, casing, emoji and a missing sign-off without a repair call', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Customers love ACME cloud 🎉 — see https://acme.example/customers today.' });
    const res = await refine('anything');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: `Members love Acme Cloud — see https://acme.example/customers today.${SIGNED}` });
    expect(res.headers.get('x-persona-violations')).toBeNull();
    expect(f.fake.requestCount).toBe(1);
  });

  it('makes exactly one repair call for a banned phrase, and reports nothing when it worked', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'We value synergy with our members.' });
    f.fake.enqueue({ mode: 'ok', reply: 'We value working together with our members.' });
    const res = await refine('anything');
    expect(await res.json()).toEqual({ response: `We value working together with our members.${SIGNED}` });
    expect(res.headers.get('x-persona-violations')).toBeNull();
    expect(f.fake.requestCount).toBe(2);
    expect(f.fake.requests[1]!.userText).toMatch(/synergy/);
  });

  it('reports what the repair could not fix in X-Persona-Violations, body still exactly { response }', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: `Synergy! ${'word '.repeat(60)}` });
    const res = await refine('anything');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['response']);
    expect(res.headers.get('x-persona-violations')).toBe('avoid=1,maxWords=1');
    expect(f.fake.requestCount).toBe(2);
  });

  it('keeps the first answer when the repair call fails', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'Pure synergy.' });
    f.fake.setBehaviour('badRequest');
    const res = await refine('anything');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: `Pure synergy.${SIGNED}` });
    expect(res.headers.get('x-persona-violations')).toBe('avoid=1');
  });

  it('"enforce": false opts out: the answer is returned as the model wrote it', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Customers 🎉 synergy' });
    const res = await refine('anything', { personaId: optedOutId });
    expect(await res.json()).toEqual({ response: 'Customers 🎉 synergy' });
    expect(f.fake.requestCount).toBe(1);
  });

  it('POST /v1/check lints text with offsets and changes nothing', async () => {
    const content = 'Our customers love synergy 🎉';
    const res = await f.server.request('/v1/check', { method: 'POST', json: { personaId, content } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.passed).toBe(false);
    const byRule = Object.fromEntries(body.violations.map((v: { rule: string; start: number; end: number }) => [v.rule, content.slice(v.start, v.end)]));
    expect(byRule).toMatchObject({ vocabulary: 'customers', avoid: 'synergy', emoji: '🎉' });
    expect(body.violations.map((v: { rule: string }) => v.rule)).toContain('signOff');
    const clean = await f.server.request('/v1/check', { method: 'POST', json: { personaId, content: `All good, members.${SIGNED}` } });
    expect(await clean.json()).toEqual({ passed: true, score: 100, scores: { rules: 100, facts: 100 }, violations: [], warnings: [] });
    expect(f.fake.requestCount).toBe(0);
  });

  it('POST /v1/check validates like every route: 404 unknown persona, 400 unknown field', async () => {
    expect((await f.server.request('/v1/check', { method: 'POST', json: { personaId: 'nope', content: 'x' } })).status).toBe(404);
    expect((await f.server.request('/v1/check', { method: 'POST', json: { personaId, content: 'x', fix: true } })).status).toBe(400);
  });

  it('provider "rules" works offline and needs no providerApiKey', async () => {
    const res = await f.server.request('/v1/refine', {
      method: 'POST',
      json: { provider: 'rules', personaId, content: 'Hi customers of ACME cloud 👋 — pure synergy.' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: `Hi members of Acme Cloud — pure synergy.${SIGNED}` });
    expect(res.headers.get('x-persona-violations')).toBe('avoid=1');
    expect(f.fake.requestCount).toBe(0);
  });

  it('a persona edit applies to the very next refine (nothing derived from the old version is reused)', async () => {
    const { id } = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Evolving', attributes: { vocabulary: { clients: 'partners' } } } })).json();
    const rulesRefine = async () =>
      (await (await f.server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId: id, content: 'Dear clients' } })).json()).response;
    expect(await rulesRefine()).toBe('Dear partners');
    await f.server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: { vocabulary: { clients: 'friends' } } } });
    expect(await rulesRefine()).toBe('Dear friends');
  });

  it('every other provider still requires providerApiKey', async () => {
    const res = await f.server.request('/v1/refine', { method: 'POST', json: { provider: 'openai', personaId, content: 'x' } });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe('providerApiKey is required');
  });
});
