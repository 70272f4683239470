/** The deterministic persona score: severities, POST /v1/check's score, X-Persona-Score and a streamed done.score. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

describe('persona score', () => {
  let f: RefineFixture;
  let strictId: string;
  let lenientId: string;
  let gatedId: string;
  const check = (json: Record<string, unknown>) => f.server.request('/v1/check', { method: 'POST', json });
  const create = async (attributes: Record<string, unknown>) =>
    (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Scored', attributes } })).json()).id as string;

  beforeAll(async () => {
    f = await startRefineFixture();
    strictId = await create({ avoid: ['synergy'], maxWords: 5 });
    lenientId = await create({ avoid: ['synergy'], maxWords: 5, enforce: { maxWords: 'recommended', avoid: 'required' } });
    gatedId = await create({ avoid: ['synergy'], maxWords: 5, enforce: { maxWords: 'recommended', avoid: 'recommended' }, minScore: 95 });
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('answers a check with score, scores and each finding\'s severity', async () => {
    const content = 'Our synergy is great and it shows.';
    const strict = await (await check({ personaId: strictId, content })).json();
    expect(strict).toMatchObject({ passed: false, score: 80, scores: { rules: 80, facts: 100 } });
    expect(strict.violations.map((v: { rule: string; severity: string }) => [v.rule, v.severity])).toEqual([
      ['maxWords', 'required'],
      ['avoid', 'required'],
    ]);
    const lenient = await (await check({ personaId: lenientId, content })).json();
    expect(lenient).toMatchObject({ passed: false, score: 86, scores: { rules: 86, facts: 100 } });
    expect(lenient.violations.map((v: { severity: string }) => v.severity)).toEqual(['recommended', 'required']);
    expect(await (await check({ personaId: lenientId, content: 'We work well together, always and everywhere.' })).json()).toMatchObject({
      passed: true,
      score: 96,
    });
  });

  it('fails a text under minScore even without a required finding', async () => {
    const body = await (await check({ personaId: gatedId, content: 'Our synergy is great and it shows.' })).json();
    expect(body).toMatchObject({ passed: false, score: 92 });
    expect(body.violations.every((v: { severity: string }) => v.severity === 'recommended')).toBe(true);
    expect(await (await check({ personaId: gatedId, content: 'Short and sweet.' })).json()).toMatchObject({ passed: true, score: 100 });
  });

  it('scores facts against original: each lost item lowers it', async () => {
    const original = 'Order 48213 ships to https://acme.example/t on 2026-12-01.';
    const kept = await (await check({ personaId: strictId, content: 'Order 48213: https://acme.example/t, 2026-12-01.', original })).json();
    expect(kept.scores.facts).toBe(100);
    const lost = await (await check({ personaId: strictId, content: 'Your order ships soon.', original })).json();
    expect(lost.scores.facts).toBe(0);
    expect(lost.score).toBeLessThan(kept.score);
  });

  it('refuses an enforce value that is neither a boolean nor a severity, naming the accepted ones', async () => {
    const res = await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Bad', attributes: { enforce: { avoid: 'optional' } } } });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/"required" or "recommended"/);
    const minScore = await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Bad', attributes: { minScore: 101 } } });
    expect(minScore.status).toBe(400);
    expect((await minScore.json()).message).toMatch(/minScore must be a whole number from 0 to 100/);
  });

  it('puts X-Persona-Score on every refine answer, and done.score on a streamed one', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Our synergy is great and it shows.' });
    const refine = (extra: Record<string, unknown>) =>
      f.server.request('/v1/refine', {
        method: 'POST',
        json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId: lenientId, content: 'Anything at all.', ...extra },
      });
    const plain = await refine({});
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-persona-score')).toBe('86');
    const rules = await refine({ provider: 'rules', providerApiKey: undefined, content: 'Our synergy is great and it shows.' });
    expect(rules.headers.get('x-persona-score')).toBe('86');
    const streamed = await refine({ stream: true });
    const done = parseEventStream(await streamed.text()).at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.score).toBe(86);
  });
});
