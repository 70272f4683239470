/**
 * The review queue (docs/quality.md, "The review queue"), through the real server on both
 * engines: the retention policy, which answers each policy keeps, deletion on time (the clock
 * moved, then the service's sweep), resolving into a sample, the bound per persona, and that no
 * provider key is kept anywhere.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { databaseText } from '../helpers/database-text.js';
import { callerKey, refineEnv } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { SteppedClock } from '../helpers/stepped-clock.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Small for the bound's test; the default is 10,000. */
const MAX_ITEMS = 4;

describe.each(storageTargets)('the review queue ($engine)', (target) => {
  let fake: FakeProviderServer;
  let server: TestServer;
  const clock = new SteppedClock();
  let requests = 0;

  const createPersona = async (attributes: Record<string, unknown> = { avoid: ['synergy'], minScore: 95 }) =>
    (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Reviewed', attributes } })).json()).id as string;
  const retain = async (personaId: string, json: unknown) => {
    const res = await server.request(`/v1/personas/${personaId}/retention`, { method: 'PUT', json });
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json();
  };
  /** A refine through the offline rules provider, asked under its own request id. */
  const refine = async (personaId: string, content: string, requestId = `review-${++requests}`) => {
    const res = await server.request('/v1/refine', { method: 'POST', headers: { 'x-request-id': requestId }, json: { provider: 'rules', personaId, content } });
    expect(res.status, await res.clone().text()).toBe(200);
    await res.text();
    return requestId;
  };
  const reviews = async (personaId: string, query = '') => {
    const res = await server.request(`/v1/personas/${personaId}/reviews${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json();
  };
  const kept = async (personaId: string) =>
    (await server.storage.db.selectFrom('reviews').select('request_id').where('persona_id', '=', personaId).orderBy('id').execute()).map((row) => row.request_id);
  const resolve = (personaId: string, requestId: string, json: unknown = {}) =>
    server.request(`/v1/personas/${personaId}/reviews/${requestId}/resolve`, { method: 'POST', json });
  const makeKey = async (scopes: string[]) => (await (await server.request('/v1/keys', { method: 'POST', json: { name: 'scoped', scopes } })).json()).secret as string;

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({ target, clock, env: refineEnv(fake, { USAGE_FLUSH_MS: '20', LOG_LEVEL: 'trace', REVIEW_QUEUE_MAX_ITEMS: String(MAX_ITEMS) }) });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });
  afterEach(() => {
    clock.reset();
    fake.reset();
  });

  it('retention: none for 30 days until set; PUT answers the policy and GET reads it back', async () => {
    const personaId = await createPersona();
    expect(await (await server.request(`/v1/personas/${personaId}/retention`)).json()).toEqual({ keep: 'none', days: 30 });
    expect(await retain(personaId, { keep: 'flagged', days: 7 })).toEqual({ keep: 'flagged', days: 7 });
    expect(await (await server.request(`/v1/personas/${personaId}/retention`)).json()).toEqual({ keep: 'flagged', days: 7 });
  });

  it('retention PUT: 400 naming what is wrong, 403 without the scope, 404 for an unknown persona', async () => {
    const personaId = await createPersona();
    const message = async (json: unknown) => {
      const res = await server.request(`/v1/personas/${personaId}/retention`, { method: 'PUT', json });
      expect(res.status).toBe(400);
      return (await res.json()).message as string;
    };
    expect(await message({ keep: 'some', days: 7 })).toBe('keep must be one of "none", "belowMinScore", "flagged", "all"');
    expect(await message({ keep: 'all', days: 0 })).toBe('days must be at least 1');
    expect(await message({ keep: 'all', days: 91 })).toBe('days must be at most 90');
    expect(await message({ keep: 'all', days: 1.5 })).toBe('days must be an integer');
    expect(await message({ keep: 'all' })).toBe('days is required');
    expect(await message({ keep: 'all', days: 7, extra: true })).toBe('unknown field "extra" in request body');
    const reader = await makeKey(['personas:read']);
    const refused = await server.request(`/v1/personas/${personaId}/retention`, { method: 'PUT', json: { keep: 'all', days: 7 }, key: reader });
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toBe('this key lacks the scope "personas:write"');
    expect((await server.request(`/v1/personas/${personaId}/retention`, { key: reader })).status).toBe(200);
    const writer = await makeKey(['personas:write']);
    expect((await server.request(`/v1/personas/${personaId}/retention`, { key: writer })).status).toBe(403);
    expect((await server.request(`/v1/personas/${personaId}/reviews`, { key: writer })).status).toBe(403);
    expect((await resolve(personaId, 'anything')).status).toBe(404);
    const unknown = '00000000-0000-7000-8000-000000000000';
    expect((await server.request(`/v1/personas/${unknown}/retention`, { method: 'PUT', json: { keep: 'all', days: 7 } })).status).toBe(404);
    expect((await server.request(`/v1/personas/${unknown}/retention`)).status).toBe(404);
  });

  it('keeps nothing by default', async () => {
    const personaId = await createPersona();
    await refine(personaId, 'We value synergy here.');
    expect(await reviews(personaId)).toEqual([]);
    expect(await kept(personaId)).toEqual([]);
  });

  it('belowMinScore keeps a refine under minScore, with its text, answer, score and findings, and not a good one', async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'belowMinScore', days: 7 });
    const low = await refine(personaId, 'We value synergy here.');
    await refine(personaId, 'We value teamwork here.');
    const [review, ...rest] = await reviews(personaId);
    expect(rest).toEqual([]);
    expect(review).toEqual({
      requestId: low, createdAt: expect.any(String), version: 1, endpoint: 'refine',
      content: 'We value synergy here.', response: expect.any(String), score: 90,
      violations: [expect.objectContaining({ rule: 'avoid', severity: 'required' })], status: 'open',
    });
    expect(Math.abs(Date.parse(review.createdAt) - Date.now())).toBeLessThan(60_000);
  });

  it('all keeps every answer, a chat completion too, newest first, paged with a Link header', async () => {
    const personaId = await createPersona({ tone: 'plain' });
    await retain(personaId, { keep: 'all', days: 7 });
    const first = await refine(personaId, 'One.');
    const second = await refine(personaId, 'Two.');
    fake.enqueue({ mode: 'ok', reply: 'Three, answered.' });
    const chat = await server.request('/v1/chat/completions', {
      method: 'POST', headers: { 'x-persona': personaId, 'x-provider-api-key': callerKey('openai'), 'x-request-id': 'review-chat' },
      json: { model: 'openai', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Three?' }] },
    });
    expect(chat.status).toBe(200);
    await chat.text();
    const all = await reviews(personaId);
    expect(all.map((r: { requestId: string }) => r.requestId)).toEqual(['review-chat', second, first]);
    expect(all[0]).toMatchObject({ endpoint: 'chat', content: 'Three?', response: 'Three, answered.' });
    const page = await server.request(`/v1/personas/${personaId}/reviews?limit=2`);
    expect((await page.json()).length).toBe(2);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    expect((await (await server.request(next!)).json()).map((r: { requestId: string }) => r.requestId)).toEqual([first]);
  });

  it("flagged keeps an answer rated down past 24 h and drops an unrated one after 24 h", async () => {
    const personaId = await createPersona({ tone: 'plain' });
    await retain(personaId, { keep: 'flagged', days: 7 });
    const rated = await refine(personaId, 'Plain words.');
    const unrated = await refine(personaId, 'More plain words.');
    // Held, waiting for feedback; not in the queue until rated down.
    expect(await reviews(personaId)).toEqual([]);
    expect(await kept(personaId)).toEqual([rated, unrated]);
    const down = await server.request('/v1/feedback', { method: 'POST', json: { requestId: rated, rating: 'down', comment: 'Too plain.' } });
    expect(down.status).toBe(201);
    expect(await reviews(personaId)).toEqual([expect.objectContaining({ requestId: rated, status: 'open', feedback: { rating: 'down', comment: 'Too plain.' } })]);
    clock.step(DAY_MS + HOUR_MS);
    await server.reviews.sweep();
    expect(await kept(personaId)).toEqual([rated]);
    expect((await reviews(personaId)).map((r: { requestId: string }) => r.requestId)).toEqual([rated]);
  });

  it('deletes what was kept after `days`, and at once on keep: none', async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'all', days: 2 });
    const old = await refine(personaId, 'Older.');
    clock.step(DAY_MS);
    const newer = await refine(personaId, 'Newer.');
    await server.reviews.sweep();
    expect(await kept(personaId)).toEqual([old, newer]);
    clock.step(DAY_MS + HOUR_MS);
    await server.reviews.sweep();
    expect(await kept(personaId)).toEqual([newer]);
    await retain(personaId, { keep: 'none', days: 2 });
    expect(await kept(personaId)).toEqual([]);
    await refine(personaId, 'Not kept.');
    expect(await reviews(personaId)).toEqual([]);
    expect(await kept(personaId)).toEqual([]);
  });

  it('deleting the persona deletes its policy and what it kept', async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'all', days: 7 });
    await refine(personaId, 'Kept until the persona goes.');
    expect((await reviews(personaId)).length).toBe(1);
    expect((await server.request(`/v1/personas/${personaId}`, { method: 'DELETE' })).status).toBe(204);
    expect(await kept(personaId)).toEqual([]);
    expect(await server.storage.db.selectFrom('review_policies').selectAll().where('persona_id', '=', personaId).execute()).toEqual([]);
  });

  it('resolve: resolved without a sample; a second resolve is a 409; an unknown request a 404', async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'all', days: 7 });
    const requestId = await refine(personaId, 'Resolve me.');
    const res = await resolve(personaId, requestId);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ requestId, status: 'resolved', content: 'Resolve me.' });
    expect(await reviews(personaId)).toEqual([]);
    expect(await reviews(personaId, '?status=resolved')).toEqual([expect.objectContaining({ requestId, status: 'resolved' })]);
    const again = await resolve(personaId, requestId, { addSample: {} });
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe(`the review of request "${requestId}" is resolved already`);
    expect((await resolve(personaId, 'never-answered')).status).toBe(404);
    const samples = await server.request(`/v1/personas/${personaId}/samples`);
    expect((await samples.json()).samples).toEqual([]);
  });

  it('resolve with addSample appends exactly one sample with the content; the samples ETag moves; the answer names the sample', async () => {
    const personaId = await createPersona();
    const put = await server.request(`/v1/personas/${personaId}/samples`, { method: 'PUT', json: { samples: [{ content: 'Already there.' }] } });
    const etag = put.headers.get('etag');
    await retain(personaId, { keep: 'all', days: 7 });
    const requestId = await refine(personaId, 'Make me a sample.');
    const res = await resolve(personaId, requestId, { addSample: { name: 'from review', expect: { notContains: ['synergy'] } } });
    expect(res.status, await res.clone().text()).toBe(200);
    const resolved = await res.json();
    expect(resolved).toMatchObject({ requestId, status: 'resolved', sampleId: expect.any(String) });
    const after = await server.request(`/v1/personas/${personaId}/samples`);
    expect(after.headers.get('etag')).not.toBe(etag);
    const { samples } = await after.json();
    expect(samples).toHaveLength(2);
    expect(samples[1]).toEqual({ id: resolved.sampleId, name: 'from review', content: 'Make me a sample.', expect: { notContains: ['synergy'] } });
    expect((await reviews(personaId, '?status=resolved'))[0].sampleId).toBe(resolved.sampleId);
  });

  it('resolve with addSample: a content longer than a sample may be is a 400 and the review stays open', async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'all', days: 7 });
    const requestId = await refine(personaId, 'Long words. '.repeat(1_700));
    const res = await resolve(personaId, requestId, { addSample: {} });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe("the review's content has 20400 characters and a sample 1 to 20000; resolve it without addSample");
    expect((await reviews(personaId)).map((r: { status: string }) => r.status)).toEqual(['open']);
    expect((await resolve(personaId, requestId)).status).toBe(200);
  });

  it(`keeps at most REVIEW_QUEUE_MAX_ITEMS answers per persona (${MAX_ITEMS} here), the oldest dropped first`, async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'all', days: 7 });
    const asked = [];
    for (let i = 0; i < MAX_ITEMS + 2; i++) {
      asked.push(await refine(personaId, `Answer ${i}.`));
      // Each refine's flush trims the queue (the recorder writes at least every USAGE_FLUSH_MS).
      await reviews(personaId);
    }
    expect(await kept(personaId)).toEqual(asked.slice(2));
  });

  it('another account gets a 404 on every route', async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'all', days: 7 });
    const requestId = await refine(personaId, 'Mine.');
    const other = await server.createAccount('review-outsider');
    expect((await server.request(`/v1/personas/${personaId}/retention`, { key: other })).status).toBe(404);
    expect((await server.request(`/v1/personas/${personaId}/retention`, { method: 'PUT', json: { keep: 'none', days: 1 }, key: other })).status).toBe(404);
    expect((await server.request(`/v1/personas/${personaId}/reviews`, { key: other })).status).toBe(404);
    expect((await server.request(`/v1/personas/${personaId}/reviews/${requestId}/resolve`, { method: 'POST', json: {}, key: other })).status).toBe(404);
    expect((await reviews(personaId)).map((r: { status: string }) => r.status)).toEqual(['open']);
  });

  it('keeps no provider key: not in any table row, log line or response', async () => {
    const personaId = await createPersona();
    await retain(personaId, { keep: 'all', days: 7 });
    const seen: string[] = [];
    const refineKey = callerKey('anthropic');
    const chatKey = callerKey('groq');
    fake.enqueue({ mode: 'ok', reply: `synergy with ${refineKey}` }, { mode: 'ok', reply: `teamwork with ${refineKey}` }, { mode: 'ok', reply: `hello ${chatKey}` });
    const refined = await server.request('/v1/refine', {
      method: 'POST', headers: { 'x-request-id': 'review-secret-refine' }, json: { provider: 'anthropic', providerApiKey: refineKey, personaId, content: 'Hello.' },
    });
    seen.push(JSON.stringify([...refined.headers]) + (await refined.text()));
    const chat = await server.request('/v1/chat/completions', {
      method: 'POST', headers: { 'x-persona': personaId, 'x-provider-api-key': chatKey, 'x-request-id': 'review-secret-chat' },
      json: { model: 'groq', messages: [{ role: 'user', content: 'hello' }] },
    });
    seen.push(JSON.stringify([...chat.headers]) + (await chat.text()));
    const listed = await server.request(`/v1/personas/${personaId}/reviews`);
    seen.push(await listed.clone().text());
    expect((await listed.json()).length).toBe(2);
    const resolved = await resolve(personaId, 'review-secret-refine', { addSample: {} });
    expect(resolved.status).toBe(200);
    seen.push(await resolved.text(), await (await server.request(`/v1/personas/${personaId}/samples`)).text());
    const stored = await databaseText(server);
    for (const key of [refineKey, chatKey]) {
      expect(secretFragmentsIn(stored, key)).toEqual([]);
      expect(secretFragmentsIn(server.logs.join('\n'), key)).toEqual([]);
      expect(secretFragmentsIn(seen.join('\n'), key)).toEqual([]);
    }
  });
});
