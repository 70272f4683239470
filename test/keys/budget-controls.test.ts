/**
 * Budgets under the conditions that broke them (issue 34): a stream cut by its client, forty
 * refines at once, replays and zero-token refines, and keys minted by a limited key. Each runs
 * on both engines (the key chain is stored) and, where several instances matter, on two
 * instances sharing PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readUntil } from '../helpers/event-stream.js';
import { callerKey, startRefineFixture, type RefineFixture } from '../helpers/refine-fixture.js';
import { awayFromMinuteEdge, tokensOf } from '../helpers/budgets.js';
import { postgresAvailable, redisAvailable } from '../helpers/services.js';
import { storageTargets } from '../helpers/storage-targets.js';
import type { TestServer } from '../helpers/test-server.js';
import { startTwoInstances, type TwoInstances } from '../helpers/two-instances.js';

const SMALL = 'The desk moved.';
// About 500 tokens' worth of refine at the fake's four characters a token (input and output).
const LARGE = 'The help desk moved to the third floor, next to the lifts. '.repeat(16);

const body = (personaId: string, content: string, extra: Record<string, unknown> = {}) => ({
  provider: 'openai', providerApiKey: callerKey('openai'), personaId, content, ...extra,
});

async function createKey(server: TestServer, json: Record<string, unknown>, key?: string) {
  const response = await server.request('/v1/keys', { method: 'POST', key, json: { name: 'budgeted', scopes: ['refine'], ...json } });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string };
}

async function usageOf(server: TestServer, keyId: string) {
  const rows = (await (await server.request('/v1/usage?groupBy=key')).json()) as Array<Record<string, number | string>>;
  const mine = rows.filter((r) => r.keyId === keyId);
  const sum = (name: string) => mine.reduce((s, r) => s + Number(r[name]), 0);
  return { tokens: sum('inputTokens') + sum('outputTokens'), inputTokens: sum('inputTokens'), providerCalls: sum('providerCalls') };
}

async function persona(server: TestServer): Promise<string> {
  return (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Budgeted', attributes: { tone: 'plain' } } })).json()).id;
}

/** What a refine of `content` costs, measured with the unlimited bootstrap key. */
async function costOf(server: TestServer, personaId: string, content: string): Promise<number> {
  const probe = await server.request('/v1/refine', { method: 'POST', json: body(personaId, content) });
  expect(probe.status).toBe(200);
  return tokensOf(probe.headers.get('x-usage'));
}

/**
 * One small refine, then forty large ones at once, against a budget of 1,000 tokens: the
 * spending never passes the budget by more than one refine, and a refine that fits passes.
 */
async function fortyAtOnce(servers: TestServer[], personaId: string) {
  const [first] = servers as [TestServer];
  const large = await costOf(first, personaId, LARGE);
  expect(large).toBeGreaterThan(300);
  expect(large).toBeLessThan(700);
  const key = await createKey(first, { limits: { tokensPerDay: 1000 } });
  expect((await first.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, SMALL) })).status).toBe(200);
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => servers[i % servers.length]!.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, LARGE) })),
  );
  const served = answers.filter((a) => a.status === 200).length;
  expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
  expect(served).toBeGreaterThanOrEqual(1);
  for (const server of servers) await server.request('/v1/usage'); // flushes each instance's counts
  const spent = (await usageOf(first, key.id)).tokens;
  expect(spent).toBeLessThanOrEqual(1000 + large);
  // What is left still buys a small refine.
  const small = await servers.at(-1)!.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, SMALL) });
  expect(small.status).toBe(200);
  expect(Number(small.headers.get('x-budget-tokens-remaining'))).toBe(1000 - spent - tokensOf(small.headers.get('x-usage')));
}

describe.each(storageTargets)('budgets under attack on $engine', (target) => {
  let f: RefineFixture;
  let personaId: string;

  beforeAll(async () => {
    f = await startRefineFixture({ target, env: { RATE_LIMIT_PER_MINUTE: '100000', MAX_CONCURRENT_REFINES_PER_ACCOUNT: '60' } });
    personaId = await persona(f.server);
  });
  afterAll(() => f?.close());

  it("a stream cut by its client frees its reservation at once and counts the tokens the provider reported", async () => {
    const key = await createKey(f.server, { limits: { tokensPerDay: 100_000 } });
    f.fake.enqueue({ mode: 'ok', pieceChars: 2, pieceDelayMs: 40 });
    const cut = new AbortController();
    const streamed = await fetch(`${f.server.url}/v1/refine`, {
      method: 'POST', signal: cut.signal,
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body(personaId, LARGE, { provider: 'anthropic', providerApiKey: callerKey('anthropic'), stream: true })),
    });
    expect(streamed.status).toBe(200);
    await readUntil(streamed, (text) => text.includes('event: delta'));
    cut.abort();
    const [request] = f.fake.requests.slice(-1);
    await f.fake.waitForClientClose(request!);
    // The key's first refine of the day was the cut stream: nothing may still hold the key.
    const next = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, SMALL) });
    expect(next.status).toBe(200);
    await expect.poll(async () => (await usageOf(f.server, key.id)).providerCalls).toBe(2);
    const usage = await usageOf(f.server, key.id);
    // Anthropic reports the input tokens as its stream starts.
    expect(usage.inputTokens).toBeGreaterThan(tokensOf(next.headers.get('x-usage')));
  });

  it('forty refines at once stay within tokensPerDay but for one refine, and a refine that fits passes', async () => {
    await fortyAtOnce([f.server], personaId);
  });

  it('a refine larger than what is left is refused before it calls the provider, naming both', async () => {
    const large = await costOf(f.server, personaId, LARGE);
    const key = await createKey(f.server, { limits: { tokensPerDay: Math.floor(large / 2) } });
    expect((await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, SMALL) })).status).toBe(200);
    const calls = f.fake.requestCount;
    const refused = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, LARGE) });
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toMatch(/^tokensPerDay budget of \d+ tokens for this key has \d+ tokens left for today \(UTC\), and this refine may spend about \d+; it renews in \d+ s$/);
    expect(f.fake.requestCount).toBe(calls);
  });

  it('a replay of a stored answer is served when the budget is spent, and costs no refinesPerMinute', async () => {
    await awayFromMinuteEdge();
    // Enough for the first refine's estimate, not for what it spends.
    const key = await createKey(f.server, { limits: { tokensPerDay: 20, refinesPerMinute: 1 } });
    const headers = { 'idempotency-key': `replay-${target.engine}` };
    const answered = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, headers, json: body(personaId, SMALL) });
    expect(answered.status).toBe(200);
    const replayed = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, headers, json: body(personaId, SMALL) });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.text()).toBe(await answered.text());
    // The budget is spent and the minute's one refine was used: a new refine is refused.
    expect((await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, SMALL) })).status).toBe(429);
  });

  it('a rules refine spends nothing and is never held behind a slow refine', async () => {
    const key = await createKey(f.server, { limits: { tokensPerDay: 100_000 } });
    f.fake.enqueue({ mode: 'slow', delayMs: 1_000 });
    const before = f.fake.requestCount;
    let slowDone = false;
    const slow = f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: body(personaId, SMALL) }).then((r) => {
      slowDone = true;
      return r;
    });
    await f.fake.waitForRequests(before + 1);
    const rules = await f.server.request('/v1/refine', { method: 'POST', key: key.secret, json: { provider: 'rules', personaId, content: SMALL } });
    expect(rules.status).toBe(200);
    expect(rules.headers.get('x-budget-tokens-remaining')).toBe('100000');
    expect(slowDone).toBe(false);
    expect((await slow).status).toBe(200);
  });

  it("a key's children spend against its budgets: a limited key cannot mint more than it may spend", async () => {
    const small = await costOf(f.server, personaId, SMALL);
    const parent = await createKey(f.server, { name: 'limited admin', scopes: ['keys:admin', 'refine'], limits: { tokensPerDay: small * 3, refinesPerMinute: 1000 } });
    const children = [];
    for (let i = 0; i < 5; i++) children.push(await createKey(f.server, { limits: { tokensPerDay: small * 3, refinesPerMinute: 1000 } }, parent.secret));
    // A grandchild, minted by a child with keys:admin, is bounded by both.
    const admin = await createKey(f.server, { scopes: ['keys:admin', 'refine'], limits: { tokensPerDay: small * 3, refinesPerMinute: 1000 } }, parent.secret);
    const grandchild = await createKey(f.server, { limits: { tokensPerDay: small * 3, refinesPerMinute: 1000 } }, admin.secret);
    const spenders = [...children, admin, grandchild, parent];
    const statuses: number[] = [];
    for (const spender of spenders) {
      statuses.push((await f.server.request('/v1/refine', { method: 'POST', key: spender.secret, json: body(personaId, SMALL) })).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    const refused = await f.server.request('/v1/refine', { method: 'POST', key: grandchild.secret, json: body(personaId, SMALL) });
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toMatch(new RegExp(`^tokensPerDay budget of ${small * 3} tokens of key "${parent.id}", which this key was created under, is spent for today`));
  });

  it("a key's children count against its refinesPerMinute", async () => {
    const parent = await createKey(f.server, { scopes: ['keys:admin', 'refine'], limits: { refinesPerMinute: 3 } });
    const children = [];
    for (let i = 0; i < 3; i++) children.push(await createKey(f.server, { limits: { refinesPerMinute: 3 } }, parent.secret));
    await awayFromMinuteEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await f.server.request('/v1/refine', { method: 'POST', key: children[i % 3]!.secret, json: { provider: 'rules', personaId, content: SMALL } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = await f.server.request('/v1/refine', { method: 'POST', key: parent.secret, json: { provider: 'rules', personaId, content: SMALL } });
    expect((await refused.json()).message).toMatch(/^refinesPerMinute limit of 3 refines per minute reached for this key; retry in \d+ s$/);
  });
});

describe.skipIf(!postgresAvailable || !redisAvailable)('budgets under attack on two instances (PostgreSQL + Redis)', () => {
  let cluster: TwoInstances;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    cluster = await startTwoInstances({ latencyMs: 30, env: { RATE_LIMIT_PER_MINUTE: '100000', MAX_CONCURRENT_REFINES_PER_ACCOUNT: '60' } });
    ({ a, b } = cluster);
  });
  afterAll(() => cluster?.close());

  it('forty refines at once over both instances stay within tokensPerDay but for one refine', async () => {
    await fortyAtOnce([a, b], await persona(a));
  });

  it("a child's spending on one instance counts against its parent's budget on the other", async () => {
    const personaId = await persona(a);
    const small = await costOf(a, personaId, SMALL);
    const parent = await createKey(a, { scopes: ['keys:admin', 'refine'], limits: { tokensPerDay: small * 2 } });
    const child = await createKey(a, { limits: { tokensPerDay: small * 2 } }, parent.secret);
    expect((await a.request('/v1/refine', { method: 'POST', key: child.secret, json: body(personaId, SMALL) })).status).toBe(200);
    expect((await b.request('/v1/refine', { method: 'POST', key: child.secret, json: body(personaId, SMALL) })).status).toBe(200);
    const refused = await b.request('/v1/refine', { method: 'POST', key: parent.secret, json: body(personaId, SMALL) });
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toMatch(/^tokensPerDay budget of \d+ tokens for this key is spent for today/);
  });
});
