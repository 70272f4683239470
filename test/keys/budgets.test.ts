/**
 * Per-key budgets against the fake providers: tokensPerDay (a race of 20
 * concurrent refines stays within the budget and serves every refine that fits, in one
 * process and across two instances sharing Redis), refinesPerMinute, X-Budget-Tokens-Remaining,
 * budget.exceeded, streams settling, and usage by key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, startRefineFixture, type RefineFixture } from '../helpers/refine-fixture.js';
import { awayFromMinuteEdge, tokensOf } from '../helpers/budgets.js';
import { postgresAvailable, redisAvailable } from '../helpers/services.js';
import type { TestServer } from '../helpers/test-server.js';
import { startTwoInstances, type TwoInstances } from '../helpers/two-instances.js';

const refineBody = (personaId: string, extra: Record<string, unknown> = {}) => ({
  provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'The help desk moved to the third floor.', ...extra,
});

async function setUp(server: TestServer) {
  const persona = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Budgeted', attributes: { tone: 'plain' } } })).json();
  // What one refine costs, measured with the unlimited bootstrap key.
  const probe = await server.request('/v1/refine', { method: 'POST', json: refineBody(persona.id) });
  expect(probe.status).toBe(200);
  const perRefine = tokensOf(probe.headers.get('x-usage'));
  expect(perRefine).toBeGreaterThan(0);
  return { personaId: persona.id as string, perRefine };
}

async function createKey(server: TestServer, limits: Record<string, number>) {
  const response = await server.request('/v1/keys', { method: 'POST', json: { name: 'budgeted', scopes: ['refine'], limits } });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string };
}

async function tokensSpentBy(server: TestServer, keyId: string): Promise<number> {
  const rows = await (await server.request('/v1/usage?groupBy=key')).json();
  return rows.filter((r: { keyId: string }) => r.keyId === keyId).reduce((sum: number, r: { inputTokens: number; outputTokens: number }) => sum + r.inputTokens + r.outputTokens, 0);
}

describe('budgets in one instance', () => {
  let f: RefineFixture;
  let personaId: string;
  let perRefine: number;

  beforeAll(async () => {
    f = await startRefineFixture({ latencyMs: 30, env: { RATE_LIMIT_PER_MINUTE: '100000', MAX_CONCURRENT_REFINES_PER_ACCOUNT: '50' } });
    ({ personaId, perRefine } = await setUp(f.server));
  });
  afterAll(() => f?.close());

  it('a race of 20 concurrent refines stays within tokensPerDay, serves every refine that fits; then 429 naming the limit', async () => {
    const budget = Math.floor(perRefine * 5.5);
    const key = await createKey(f.server, { tokensPerDay: budget });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) })),
    );
    const served = answers.filter((a) => a.status === 200);
    const spent = await tokensSpentBy(f.server, key.id);
    expect(spent).toBe(served.length * perRefine);
    expect(spent).toBeGreaterThan(budget - perRefine);
    expect(spent).toBeLessThanOrEqual(budget);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    const after = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) });
    expect(after.status).toBe(429);
    expect(Number(after.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(after.headers.get('x-budget-tokens-remaining')).toBe(String(budget - spent));
    expect((await after.json()).message).toMatch(
      new RegExp(`^tokensPerDay budget of ${budget} tokens for this key has ${budget - spent} tokens left for today \\(UTC\\), and this refine may spend about ${perRefine}`),
    );
    const exceeded = async () =>
      ((await (await f.server.request('/v1/audit?limit=1000')).json()) as Array<{ action: string; keyId?: string }>).filter(
        (e) => e.action === 'budget.exceeded' && e.keyId === key.id,
      );
    await expect.poll(exceeded).toHaveLength(1);
    const events = await exceeded();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ detail: 'tokensPerDay', personaId: null });
  });

  it('a refine that spent nothing (unknown persona, 404) does not switch the concurrency guard off', async () => {
    const budget = Math.floor(perRefine * 2.5);
    const key = await createKey(f.server, { tokensPerDay: budget });
    const unknown = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody('prs_does_not_exist') });
    expect(unknown.status).toBe(404);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) })),
    );
    const served = answers.filter((a) => a.status === 200).length;
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    const spent = await tokensSpentBy(f.server, key.id);
    expect(spent).toBe(served * perRefine);
    expect(spent).toBeLessThanOrEqual(budget + perRefine);
  });

  it('refine answers carry X-Budget-Tokens-Remaining; keys without a budget do not', async () => {
    const key = await createKey(f.server, { tokensPerDay: perRefine * 10 });
    const first = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) });
    expect(first.headers.get('x-budget-tokens-remaining')).toBe(String(perRefine * 9));
    const unlimited = await f.server.request('/v1/refine', { method: 'POST', json: refineBody(personaId) });
    expect(unlimited.headers.get('x-budget-tokens-remaining')).toBeNull();
  });

  it('a streamed refine is settled when it ends', async () => {
    const key = await createKey(f.server, { tokensPerDay: perRefine * 10 });
    const streamed = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId, { stream: true }) });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('x-budget-tokens-remaining')).toBe(String(perRefine * 10));
    await streamed.text();
    await expect.poll(() => tokensSpentBy(f.server, key.id)).toBeGreaterThan(0);
    const next = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) });
    const streamedTokens = await tokensSpentBy(f.server, key.id) - perRefine;
    expect(streamedTokens).toBeGreaterThan(0);
    expect(next.headers.get('x-budget-tokens-remaining')).toBe(String(perRefine * 9 - streamedTokens));
  });

  it('refinesPerMinute: the next refine in the minute is a 429 naming the limit', async () => {
    await awayFromMinuteEdge();
    const key = await createKey(f.server, { refinesPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) })).status).toBe(200);
    }
    const refused = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).message).toMatch(/^refinesPerMinute limit of 3 refines per minute reached for this key; retry in \d+ s$/);
    // Checks are not refines.
    expect((await f.server.request('/v1/check', { method: 'POST', key: key.secret, json: { personaId, content: 'Hi.' } })).status).toBe(200);
  });

  it('usage by key: each row names its key; the totals without groupBy are unchanged', async () => {
    const byKey = await (await f.server.request('/v1/usage?groupBy=key')).json();
    const plain = await (await f.server.request('/v1/usage')).json();
    expect(byKey.every((r: { keyId?: unknown }) => typeof r.keyId === 'string')).toBe(true);
    expect(plain.every((r: object) => !('keyId' in r))).toBe(true);
    const total = (rows: Array<{ refines: number; inputTokens: number }>) => rows.reduce((s, r) => s + r.refines * 1e6 + r.inputTokens, 0);
    expect(total(byKey)).toBe(total(plain));
  });
});

describe.skipIf(!postgresAvailable || !redisAvailable)('budgets across two instances (PostgreSQL + Redis)', () => {
  let cluster: TwoInstances;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    cluster = await startTwoInstances({ latencyMs: 30, env: { RATE_LIMIT_PER_MINUTE: '100000', MAX_CONCURRENT_REFINES_PER_ACCOUNT: '50' } });
    ({ a, b } = cluster);
  });
  afterAll(() => cluster?.close());

  it('20 concurrent refines split over both instances stay within tokensPerDay and serve every refine that fits', async () => {
    const { personaId, perRefine } = await setUp(a);
    const budget = Math.floor(perRefine * 4.5);
    const key = await createKey(a, { tokensPerDay: budget });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) })),
    );
    const served = answers.filter((r) => r.status === 200).length;
    expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    await b.request('/v1/usage'); // flushes b's counts
    const spent = await tokensSpentBy(a, key.id);
    expect(spent).toBe(served * perRefine);
    expect(spent).toBeGreaterThan(budget - perRefine);
    expect(spent).toBeLessThanOrEqual(budget);
    expect((await b.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) })).status).toBe(429);
  });

  it('through Redis too, a refine that spent nothing (404) does not switch the concurrency guard off', async () => {
    const { personaId, perRefine } = await setUp(a);
    const budget = Math.floor(perRefine * 2.5);
    const key = await createKey(a, { tokensPerDay: budget });
    expect((await b.request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody('prs_does_not_exist') })).status).toBe(404);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(personaId) })),
    );
    const served = answers.filter((r) => r.status === 200).length;
    expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    await b.request('/v1/usage'); // flushes b's counts
    const spent = await tokensSpentBy(a, key.id);
    expect(spent).toBe(served * perRefine);
    expect(spent).toBeLessThanOrEqual(budget + perRefine);
  });

  it('refinesPerMinute is one count for both instances', async () => {
    await awayFromMinuteEdge();
    const persona = await (await a.request('/v1/personas', { method: 'POST', json: { name: 'Rated' } })).json();
    const key = await createKey(a, { refinesPerMinute: 4 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await (i % 2 ? a : b).request('/v1/refine', { method: 'POST', key: key.secret, json: refineBody(persona.id) })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
