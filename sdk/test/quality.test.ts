import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine, PersonaRefineError } from '../src/index.js';
import { answer, startScriptedServer } from './helpers/scripted-server.js';

const today = () => new Date().toISOString().slice(0, 10);
const noFeedback = { up: 0, down: 0 };
/** The rules provider calls no provider: its answers cost no token. */
const noTokens = { input: 0, output: 0 };

describe('client.quality and client.feedback against a real server', () => {
  let server: TestServer;
  let client: PersonaRefine;
  beforeAll(async () => {
    // A short flush interval keeps a 404 quick: the feedback route waits one interval for another instance before it.
    server = await startTestServer({ env: { USAGE_FLUSH_MS: '20' } });
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(() => server.close());

  const persona = async () => (await client.personas.create({ name: 'Rated', attributes: { avoid: ['synergy'], minScore: 95 } })).id;

  it('rates a refine by its requestId; quality counts the answers and the rating, by day and by version', async () => {
    const personaId = await persona();
    const refined = await client.refine({ provider: 'rules', personaId, content: 'We value synergy here.' });
    expect(refined.requestId).toMatch(/\S/);
    expect(JSON.parse(JSON.stringify(refined))).toEqual({ response: refined.response });
    await client.refine({ provider: 'rules', personaId, content: 'We value teamwork here.' });

    const given = await client.feedback.create({ requestId: refined.requestId!, rating: 'down', correctedText: 'We value teamwork here.', comment: 'jargon' });
    expect(given).toEqual({
      id: expect.any(String),
      requestId: refined.requestId,
      personaId,
      version: 1,
      rating: 'down',
      correctedText: 'We value teamwork here.',
      comment: 'jargon',
      createdAt: expect.any(String),
    });

    // Each instance writes its pending counts before it answers a quality request: no wait on one instance.
    expect(await client.quality(personaId)).toEqual([
      { day: today(), answers: 2, meanScore: 95, belowMinScore: 1, withRequiredFindings: 1, findings: { avoid: 1 }, feedback: { up: 0, down: 1 }, tokens: noTokens },
    ]);
    await client.personas.update(personaId, { attributes: { avoid: ['synergy'] } });
    await client.refine({ provider: 'rules', personaId, content: 'Plain words.' });
    expect(await client.quality(personaId, { from: today(), to: today(), groupBy: 'version' })).toEqual([
      { version: 1, answers: 2, meanScore: 95, belowMinScore: 1, withRequiredFindings: 1, findings: { avoid: 1 }, feedback: { up: 0, down: 1 }, tokens: noTokens },
      { version: 2, answers: 1, meanScore: 100, belowMinScore: 0, withRequiredFindings: 0, findings: {}, feedback: noFeedback, tokens: noTokens },
    ]);
  });

  it('a streamed refine carries its requestId too, and a second rating replaces the first', async () => {
    const personaId = await persona();
    const stream = client.refineStream({ provider: 'rules', personaId, content: 'Plain words.' });
    for await (const piece of stream) expect(typeof piece).toBe('string');
    const { requestId } = await stream.result;
    expect(requestId).toMatch(/\S/);
    const first = await client.feedback.create({ requestId: requestId!, rating: 'down' });
    const second = await client.feedback.create({ requestId: requestId!, rating: 'up' });
    expect(second.id).not.toBe(first.id);
    expect(await client.feedback.list(personaId)).toEqual([second]);
    expect((await client.quality(personaId))[0]?.feedback).toEqual({ up: 1, down: 0 });
  });

  it('feedback.list reads every page, newest first, and keeps one rating', async () => {
    const personaId = await persona();
    const given = [];
    for (const rating of ['up', 'down', 'up', 'up', 'down'] as const) {
      const { requestId } = await client.refine({ provider: 'rules', personaId, content: `Answer ${given.length}.` });
      given.push(await client.feedback.create({ requestId: requestId!, rating }));
    }
    const newestFirst = [...given].reverse();
    expect(await client.feedback.list(personaId, { pageSize: 2 })).toEqual(newestFirst);
    expect(await client.feedback.list(personaId)).toEqual(newestFirst);
    expect(await client.feedback.list(personaId, { rating: 'down', pageSize: 1 })).toEqual(newestFirst.filter((f) => f.rating === 'down'));
  });

  it('an unknown request id, an unknown persona and a day that is no date are errors with the server\'s message', async () => {
    const unknown = await client.feedback.create({ requestId: 'no-such-request', rating: 'up' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(PersonaRefineError);
    expect(unknown).toMatchObject({ status: 404 });
    await expect(client.quality('no-such-persona')).rejects.toMatchObject({ status: 404 });
    await expect(client.feedback.list('no-such-persona')).rejects.toMatchObject({ status: 404 });
    const personaId = await persona();
    await expect(client.quality(personaId, { from: '2026-02-30' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('from') });
  });
});

describe('client.retention and client.reviews against a real server', () => {
  let server: TestServer;
  let client: PersonaRefine;
  beforeAll(async () => {
    server = await startTestServer({ env: { USAGE_FLUSH_MS: '20' } });
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(() => server.close());

  it('keeps nothing until a policy is set; then keeps the answers under minScore, lists them with their feedback, and resolves one into a sample', async () => {
    const personaId = (await client.personas.create({ name: 'Reviewed', attributes: { avoid: ['synergy'], minScore: 95 } })).id;
    expect(await client.retention.get(personaId)).toEqual({ keep: 'none', days: 30 });
    await client.refine({ provider: 'rules', personaId, content: 'Before the policy, synergy.' });
    expect(await client.retention.set(personaId, { keep: 'belowMinScore', days: 7 })).toEqual({ keep: 'belowMinScore', days: 7 });
    expect(await client.retention.get(personaId)).toEqual({ keep: 'belowMinScore', days: 7 });

    const low = await client.refine({ provider: 'rules', personaId, content: 'We value synergy here.' });
    await client.refine({ provider: 'rules', personaId, content: 'Plain words.' });
    await client.feedback.create({ requestId: low.requestId!, rating: 'down', correctedText: 'We value teamwork here.' });
    // The queue writes what it holds before it answers a list: the answers above are in it.
    const [review, ...others] = await client.reviews.list(personaId);
    expect(others).toEqual([]);
    expect(review).toMatchObject({
      requestId: low.requestId,
      version: 1,
      endpoint: 'refine',
      content: 'We value synergy here.',
      response: low.response,
      score: low.score,
      feedback: { rating: 'down', correctedText: 'We value teamwork here.' },
      status: 'open',
    });
    expect(review!.violations.map((v) => v.rule)).toEqual(['avoid']);

    const resolved = await client.reviews.resolve(personaId, low.requestId!, { addSample: { name: 'synergy', expect: { notContains: ['synergy'] } } });
    expect(resolved).toMatchObject({ requestId: low.requestId, status: 'resolved', sampleId: expect.any(String) });
    const { samples } = await client.personas.samples.get(personaId);
    expect(samples.map((sample) => [sample.id, sample.name, sample.content])).toEqual([[resolved.sampleId, 'synergy', 'We value synergy here.']]);
    expect(await client.reviews.list(personaId)).toEqual([]);
    expect((await client.reviews.list(personaId, { status: 'resolved' })).map((r) => r.requestId)).toEqual([low.requestId]);
    // Resolved already: a 409, so a retry never adds a second sample.
    await expect(client.reviews.resolve(personaId, low.requestId!, { addSample: {} })).rejects.toMatchObject({ status: 409 });
    await expect(client.reviews.resolve(personaId, 'not-kept')).rejects.toMatchObject({ status: 404 });
  });

  it('reviews.list reads every page, newest first; keep: none deletes what was kept', async () => {
    const personaId = (await client.personas.create({ name: 'Kept', attributes: { avoid: ['synergy'] } })).id;
    await client.retention.set(personaId, { keep: 'all', days: 1 });
    const requestIds = [];
    for (let i = 0; i < 5; i++) requestIds.push((await client.refine({ provider: 'rules', personaId, content: `Answer ${i}.` })).requestId);
    expect((await client.reviews.list(personaId, { pageSize: 2 })).map((r) => r.requestId)).toEqual(requestIds.reverse());
    await client.retention.set(personaId, { keep: 'none', days: 1 });
    expect(await client.reviews.list(personaId)).toEqual([]);
  });
});

describe('client.feedback.list against a server whose pages loop', () => {
  it('stops with an error when a next page links back to one already read, instead of reading forever', async () => {
    const looping = await startScriptedServer((_request, index) =>
      answer(200, [], { link: `</v1/personas/p1/feedback?limit=1&cursor=${index % 2 === 0 ? 'a' : 'b'}>; rel="next"` }),
    );
    try {
      const client = new PersonaRefine({ apiKey: 'prk_test_LoopingPages0123456789', baseUrl: looping.url });
      await expect(client.feedback.list('p1')).rejects.toMatchObject({ kind: 'http', message: "the list's pages link back to one already read" });
      expect(looping.seen.map((request) => request.path)).toEqual([
        '/v1/personas/p1/feedback',
        '/v1/personas/p1/feedback?cursor=a',
        '/v1/personas/p1/feedback?cursor=b',
      ]);
    } finally {
      await looping.close();
    }
  });
});
