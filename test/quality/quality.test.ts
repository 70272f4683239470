/**
 * Quality on live traffic and feedback (docs/quality.md), through the real server on both
 * engines: the aggregates every refine, chat completion and check adds to, the day range
 * rules, feedback on an answer named by its X-Request-Id, and what deleting a persona removes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { databaseText } from '../helpers/database-text.js';
import { callerKey, refineEnv } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { redisAvailable } from '../helpers/services.js';
import { SteppedClock } from '../helpers/stepped-clock.js';
import { postgresAvailable } from '../helpers/services.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startTwoInstances } from '../helpers/two-instances.js';

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const noFeedback = { up: 0, down: 0 };
const noTokens = { input: 0, output: 0 };

/** A response's `X-Usage` tokens, as a quality row's `tokens` counts them. */
function usageTokens(res: Response): { input: number; output: number } {
  const members = new Map((res.headers.get('x-usage') ?? '').split(', ').map((member) => member.split('=') as [string, string]));
  return { input: Number(members.get('input_tokens')), output: Number(members.get('output_tokens')) };
}

describe.each(storageTargets)('quality on live traffic and feedback ($engine)', (target) => {
  let fake: FakeProviderServer;
  let server: TestServer;
  const clock = new SteppedClock();
  let requests = 0;

  const createPersona = async (attributes: Record<string, unknown> = { avoid: ['synergy'], minScore: 95 }) =>
    (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Quality', attributes } })).json()).id as string;
  /** A refine through the offline rules provider, asked under its own request id. */
  const refine = async (personaId: string, content: string, requestId = `quality-${++requests}`, extra: Record<string, unknown> = {}) => {
    const res = await server.request('/v1/refine', { method: 'POST', headers: { 'x-request-id': requestId }, json: { provider: 'rules', personaId, content, ...extra } });
    expect(res.status, await res.clone().text()).toBe(200);
    await res.text();
    return requestId;
  };
  const quality = async (personaId: string, query = '') => server.request(`/v1/personas/${personaId}/quality${query}`);
  const feedback = (json: Record<string, unknown>, key?: string) => server.request('/v1/feedback', { method: 'POST', json, ...(key ? { key } : {}) });

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    // A short flush interval keeps the 404 path, which waits one interval for another instance, quick.
    server = await startTestServer({ target, clock, env: refineEnv(fake, { USAGE_FLUSH_MS: '20', LOG_LEVEL: 'trace' }) });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });
  afterEach(() => {
    clock.reset();
    fake.reset();
  });

  it('counts refines, chat completions and checks per day: answers, mean score, below minScore, required findings, findings by rule', async () => {
    const personaId = await createPersona();
    await refine(personaId, 'We value synergy here.'); // avoid: 90
    await refine(personaId, 'We value teamwork here.'); // 100
    await refine(personaId, 'We value synergy, streamed.', undefined, { stream: true }); // 90
    fake.enqueue({ mode: 'ok', reply: 'Teamwork wins.' });
    const chat = await server.request('/v1/chat/completions', {
      method: 'POST', headers: { 'x-persona': personaId, 'x-provider-api-key': callerKey('openai') },
      json: { model: 'openai', messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(chat.status).toBe(200);
    const { usage } = await chat.json();
    const check = await server.request('/v1/check', { method: 'POST', json: { personaId, content: 'synergy and more synergy' } });
    expect((await check.json()).score).toBe(80);
    // A failed refine counts nothing.
    fake.enqueue({ mode: 'rejectKey' });
    const failed = await server.request('/v1/refine', { method: 'POST', json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'Hi.' } });
    expect(failed.status).toBeGreaterThanOrEqual(400);

    const res = await quality(personaId);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      rows: [{
        day: today(), answers: 5, meanScore: 92, belowMinScore: 3, withRequiredFindings: 3, findings: { avoid: 4 }, feedback: noFeedback,
        // The chat completion's alone: the rules provider and an unjudged check call no provider.
        tokens: { input: usage.prompt_tokens, output: usage.completion_tokens },
      }],
    });
  });

  it('a cache hit and a streamed chat completion count as answers too', async () => {
    const personaId = await createPersona({ avoid: ['synergy'] });
    fake.setBehaviour({ mode: 'ok', reply: 'We value synergy.' });
    for (let i = 0; i < 2; i++) {
      const res = await server.request('/v1/refine', {
        method: 'POST', headers: { 'cache-control': 'max-age=600' },
        json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'Cache me.' },
      });
      expect(res.headers.get('x-cache')).toBe(i === 0 ? 'MISS' : 'HIT');
      await res.text();
    }
    fake.setBehaviour({ mode: 'ok', reply: 'Teamwork wins.' });
    const streamed = await server.request('/v1/chat/completions', {
      method: 'POST', headers: { 'x-persona': personaId, 'x-provider-api-key': callerKey('openai') },
      json: { model: 'openai', messages: [{ role: 'user', content: 'hello' }], stream: true },
    });
    expect(await streamed.text()).toContain('[DONE]');
    const [row] = (await (await quality(personaId)).json()).rows;
    expect(row).toMatchObject({ answers: 3, withRequiredFindings: 2, findings: { avoid: 2 } });
  });

  it('counts the tokens X-Usage reports for each answer; the rules provider and a cache hit cost none', async () => {
    const personaId = await createPersona({ avoid: ['synergy'] });
    fake.setBehaviour({ mode: 'ok', reply: 'We value teamwork, said plainly.' });
    const answered = [];
    for (let i = 0; i < 2; i++) {
      const res = await server.request('/v1/refine', {
        method: 'POST', headers: { 'cache-control': 'max-age=600' },
        json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'Count my tokens, please.' },
      });
      expect(res.headers.get('x-cache')).toBe(i === 0 ? 'MISS' : 'HIT');
      answered.push(usageTokens(res));
      await res.text();
    }
    const [miss, hit] = answered;
    expect(miss!.input).toBeGreaterThan(0);
    expect(miss!.output).toBeGreaterThan(0);
    expect(hit).toEqual(noTokens);
    await refine(personaId, 'Rules alone.');
    const [row] = (await (await quality(personaId)).json()).rows;
    expect(row).toMatchObject({ answers: 3, tokens: miss });
  });

  it('a chat answer whose rules were skipped (tool calls alone) is an answer still, with its score', async () => {
    const personaId = await createPersona();
    fake.enqueue({ mode: 'ok', toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] });
    const chat = await server.request('/v1/chat/completions', {
      method: 'POST', headers: { 'x-persona': personaId, 'x-provider-api-key': callerKey('openai') },
      json: { model: 'openai', messages: [{ role: 'user', content: 'look it up' }], tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] },
    });
    expect(chat.status).toBe(200);
    const { usage } = await chat.json();
    expect((await (await quality(personaId)).json()).rows).toEqual([
      {
        day: today(), answers: 1, meanScore: 100, belowMinScore: 0, withRequiredFindings: 0, findings: {}, feedback: noFeedback,
        tokens: { input: usage.prompt_tokens, output: usage.completion_tokens },
      },
    ]);
  });

  it('groupBy=version: one row per version over the range, lowest first', async () => {
    const personaId = await createPersona();
    await refine(personaId, 'We value synergy here.');
    const patched = await server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { attributes: { avoid: ['synergy', 'leverage'] } } });
    expect(patched.status).toBe(200);
    await refine(personaId, 'We leverage synergy.');
    await refine(personaId, 'Plain words.');
    const res = await quality(personaId, '?groupBy=version');
    expect(await res.json()).toEqual({
      rows: [
        { version: 1, answers: 1, meanScore: 90, belowMinScore: 1, withRequiredFindings: 1, findings: { avoid: 1 }, feedback: noFeedback, tokens: noTokens },
        // Version 2 sets no minScore: nothing is under it.
        { version: 2, answers: 2, meanScore: 90, belowMinScore: 0, withRequiredFindings: 1, findings: { avoid: 2 }, feedback: noFeedback, tokens: noTokens },
      ],
    });
  });

  it('checks the range: real dates, from ≤ to, at most 366 days; an unknown or another account\'s persona is a 404', async () => {
    const personaId = await createPersona();
    const message = async (query: string) => {
      const res = await quality(personaId, query);
      expect(res.status).toBe(400);
      return (await res.json()).message;
    };
    expect(await message('?from=2026-02-30')).toBe('from must be a date as YYYY-MM-DD (UTC), e.g. 2026-11-01');
    expect(await message('?from=2026-11-01&to=tomorrow')).toBe('to must be a date as YYYY-MM-DD (UTC), e.g. 2026-11-01');
    expect(await message('?from=2026-11-02&to=2026-11-01')).toBe('from must not be after to');
    expect(await message('?from=2025-01-01&to=2026-01-02')).toBe('the range from..to must span at most 366 days');
    expect(await message('?groupBy=week')).toMatch(/groupBy/);
    expect((await quality(personaId, '?from=2025-01-01&to=2026-01-01')).status).toBe(200);
    expect((await quality('00000000-0000-7000-8000-000000000000')).status).toBe(404);
    const other = await server.createAccount('someone-else');
    expect((await server.request(`/v1/personas/${personaId}/quality`, { key: other })).status).toBe(404);
    expect((await server.request(`/v1/personas/${personaId}/feedback`, { key: other })).status).toBe(404);
  });

  it('feedback: 201 with the exact body; a second replaces the first and moves its count', async () => {
    const personaId = await createPersona();
    const requestId = await refine(personaId, 'We value synergy here.');
    const first = await feedback({ requestId, rating: 'up', correctedText: 'We value teamwork here.', comment: 'close' });
    expect(first.status).toBe(201);
    const given = await first.json();
    expect(given).toEqual({
      id: expect.any(String), requestId, personaId, version: 1, rating: 'up', correctedText: 'We value teamwork here.', comment: 'close', createdAt: expect.any(String),
    });
    expect(Date.parse(given.createdAt)).not.toBeNaN();
    expect((await (await quality(personaId)).json()).rows[0].feedback).toEqual({ up: 1, down: 0 });

    const second = await feedback({ requestId, rating: 'down' });
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual({ id: expect.any(String), requestId, personaId, version: 1, rating: 'down', createdAt: expect.any(String) });
    expect((await (await quality(personaId)).json()).rows[0].feedback).toEqual({ up: 0, down: 1 });
    const listed = await (await server.request(`/v1/personas/${personaId}/feedback`)).json();
    expect(listed).toHaveLength(1);
    expect(listed[0].rating).toBe('down');
  });

  it('feedback on a chat completion, given at once after it', async () => {
    const personaId = await createPersona();
    fake.enqueue({ mode: 'ok', reply: 'Teamwork wins.' });
    const chat = await server.request('/v1/chat/completions', {
      method: 'POST', headers: { 'x-persona': personaId, 'x-provider-api-key': callerKey('openai'), 'x-request-id': 'quality-chat-1' },
      json: { model: 'openai', messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(chat.status).toBe(200);
    const res = await feedback({ requestId: 'quality-chat-1', rating: 'up' });
    expect(res.status).toBe(201);
    expect((await res.json()).personaId).toBe(personaId);
  });

  it('feedback naming another account\'s request, an unknown one, a check, or one older than 30 days is a 404', async () => {
    const personaId = await createPersona();
    const requestId = await refine(personaId, 'Plain words.');
    const other = await server.createAccount('another-team');
    expect((await feedback({ requestId, rating: 'up' }, other)).status).toBe(404);
    const unknown = await feedback({ requestId: 'never-asked', rating: 'up' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).message).toMatch(/no answer to request "never-asked" of this account in the last 30 days/);
    const check = await server.request('/v1/check', { method: 'POST', headers: { 'x-request-id': 'quality-check-1' }, json: { personaId, content: 'Hi.' } });
    expect(check.status).toBe(200);
    expect((await feedback({ requestId: 'quality-check-1', rating: 'up' })).status).toBe(404);
    clock.step(31 * DAY_MS);
    expect((await feedback({ requestId, rating: 'up' })).status).toBe(404);
    clock.reset();
    expect((await feedback({ requestId, rating: 'up' })).status).toBe(201);
  });

  it('refuses feedback out of bounds with a 400', async () => {
    const personaId = await createPersona();
    const requestId = await refine(personaId, 'Plain words.');
    for (const body of [
      { requestId, rating: 'meh' },
      { requestId, rating: 'up', comment: 'x'.repeat(4097) },
      { requestId, rating: 'up', correctedText: 'x'.repeat(65_537) },
      { rating: 'up' },
      { requestId, rating: 'up', extra: true },
    ]) {
      expect((await feedback(body)).status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
  });

  it('lists feedback newest first, in pages with a Link to the next, filtered by rating', async () => {
    const personaId = await createPersona();
    const ratings = ['up', 'down', 'up'] as const;
    const ids: string[] = [];
    for (const rating of ratings) {
      const res = await feedback({ requestId: await refine(personaId, 'Plain words.'), rating });
      ids.push((await res.json()).id);
    }
    const page = await server.request(`/v1/personas/${personaId}/feedback?limit=2`);
    expect((await page.json()).map((f: { id: string }) => f.id)).toEqual([ids[2], ids[1]]);
    const link = page.headers.get('link');
    expect(link).toMatch(/^<\/v1\/personas\/[^>]+\/feedback\?limit=2&cursor=[^>]+>; rel="next"$/);
    const next = await server.request(link!.slice(1, link!.indexOf('>')));
    expect((await next.json()).map((f: { id: string }) => f.id)).toEqual([ids[0]]);
    expect(next.headers.get('link')).toBeNull();
    const ups = await (await server.request(`/v1/personas/${personaId}/feedback?rating=up`)).json();
    expect(ups.map((f: { id: string }) => f.id)).toEqual([ids[2], ids[0]]);
    expect((await (await quality(personaId)).json()).rows[0].feedback).toEqual({ up: 2, down: 1 });
  });

  it('deleting a persona deletes its quality rows, answer log and feedback', async () => {
    const personaId = await createPersona();
    const requestId = await refine(personaId, 'We value synergy here.');
    expect((await feedback({ requestId, rating: 'down' })).status).toBe(201);
    await quality(personaId);
    const db = server.storage.db;
    const count = async (table: 'quality_daily' | 'quality_findings_daily' | 'answer_log' | 'feedback') =>
      Number((await db.selectFrom(table).select(db.fn.countAll<number>().as('n')).where('persona_id', '=', personaId).executeTakeFirstOrThrow()).n);
    for (const table of ['quality_daily', 'quality_findings_daily', 'answer_log', 'feedback'] as const) expect(await count(table), table).toBe(1);
    // An answer still in this instance's buffer at deletion is dropped when it is written.
    await refine(personaId, 'We value synergy again.');
    expect((await server.request(`/v1/personas/${personaId}`, { method: 'DELETE' })).status).toBe(204);
    await server.request('/v1/usage');
    await quality(personaId);
    // A flush the interval began before the deletion may still be writing: its rows must go too.
    for (const table of ['quality_daily', 'quality_findings_daily', 'answer_log', 'feedback'] as const) await expect.poll(() => count(table), { message: table, timeout: 10_000 }).toBe(0);
    expect((await feedback({ requestId, rating: 'up' })).status).toBe(404);
  });

  it('a provider key sent on a refine or a chat completion is in no table row, log line or response', async () => {
    const personaId = await createPersona();
    const seen: string[] = [];
    const refineKey = callerKey('anthropic');
    const chatKey = callerKey('groq');
    fake.enqueue({ mode: 'ok', reply: `synergy with ${refineKey}` }, { mode: 'ok', reply: `teamwork with ${refineKey}` }, { mode: 'ok', reply: `hello ${chatKey}` });
    const refined = await server.request('/v1/refine', {
      method: 'POST', headers: { 'x-request-id': 'quality-secret-refine' }, json: { provider: 'anthropic', providerApiKey: refineKey, personaId, content: 'Hello.' },
    });
    seen.push(JSON.stringify([...refined.headers]) + (await refined.text()));
    const chat = await server.request('/v1/chat/completions', {
      method: 'POST', headers: { 'x-persona': personaId, 'x-provider-api-key': chatKey, 'x-request-id': 'quality-secret-chat' },
      json: { model: 'groq', messages: [{ role: 'user', content: 'hello' }] },
    });
    seen.push(JSON.stringify([...chat.headers]) + (await chat.text()));
    for (const requestId of ['quality-secret-refine', 'quality-secret-chat']) {
      const res = await feedback({ requestId, rating: 'up' });
      expect(res.status).toBe(201);
      seen.push(await res.text());
    }
    for (const path of [`/v1/personas/${personaId}/quality`, `/v1/personas/${personaId}/feedback`]) seen.push(await (await server.request(path)).text());
    const stored = await databaseText(server);
    for (const key of [refineKey, chatKey]) {
      expect(secretFragmentsIn(stored, key)).toEqual([]);
      expect(secretFragmentsIn(server.logs.join('\n'), key)).toEqual([]);
      expect(secretFragmentsIn(seen.join('\n'), key)).toEqual([]);
    }
  });
});

describe.skipIf(!postgresAvailable || !redisAvailable)('quality across two instances on PostgreSQL', () => {
  it('adds both instances\' answers into one row, and feedback finds an answer the other instance has not written yet', async () => {
    const two = await startTwoInstances({ env: { USAGE_FLUSH_MS: '50' } });
    try {
      const { a, b } = two;
      const personaId = (await (await a.request('/v1/personas', { method: 'POST', json: { name: 'Shared', attributes: { avoid: ['synergy'] } } })).json()).id;
      const refine = async (server: TestServer, requestId: string, content: string) => {
        const res = await server.request('/v1/refine', { method: 'POST', headers: { 'x-request-id': requestId }, json: { provider: 'rules', personaId, content } });
        expect(res.status).toBe(200);
      };
      await refine(a, 'two-a-1', 'We value synergy.');
      await refine(b, 'two-b-1', 'Plain words.');
      await refine(b, 'two-b-2', 'Plain words again.');
      // Given on a for an answer b may still hold in its buffer.
      const rated = await a.request('/v1/feedback', { method: 'POST', json: { requestId: 'two-b-2', rating: 'down' } });
      expect(rated.status).toBe(201);
      // Each instance writes its own buffer when read.
      await b.request(`/v1/personas/${personaId}/quality`);
      const rows = (await (await a.request(`/v1/personas/${personaId}/quality`)).json()).rows;
      expect(rows).toEqual([
        { day: today(), answers: 3, meanScore: 96.67, belowMinScore: 0, withRequiredFindings: 1, findings: { avoid: 1 }, feedback: { up: 0, down: 1 }, tokens: noTokens },
      ]);
    } finally {
      await two.close();
    }
  });
});
