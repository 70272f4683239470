/**
 * Why a sample failed its `expect`, on both engines (docs/evaluations.md, "Runs"): every result
 * lists its expectation terms, met or not, the summary counts the unmet ones, the events carry
 * both, and runs stored before results reported them still read. A judged sample whose persona
 * has nothing to rate says so in its judge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

const SAMPLES = [
  { content: 'Say hi to ALPHA.', expect: { contains: ['ALPHA', 'BETA'], notContains: ['Hello', 'goodbye'] } },
  { content: 'Say hi to GAMMA.', expect: { contains: ['GAMMA'] } },
  { content: 'Say hi to DELTA.' },
];

describe.each(storageTargets)('evaluation expectations on $engine', (target) => {
  let f: RefineFixture;
  const request = (path: string, init: RequestInit & { json?: unknown } = {}) => f.server.request(path, init);
  const persona = async (attributes: Record<string, unknown>) => {
    const id = (await (await request('/v1/personas', { method: 'POST', json: { name: 'Expecting', attributes } })).json()).id as string;
    expect((await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: SAMPLES } })).status).toBe(200);
    return id;
  };
  const run = async (id: string, body: Record<string, unknown> = {}) => {
    const started = await request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'openai', providerApiKey: callerKey('openai'), ...body } });
    expect(started.status).toBe(202);
    const evalId = (await started.json()).id as string;
    await expect.poll(async () => (await (await request(`/v1/personas/${id}/evals/${evalId}`)).json()).status, { timeout: 60_000 }).toBe('completed');
    return evalId;
  };

  beforeAll(async () => {
    // Nothing here is about a provider's deadline: a loaded machine must not turn an answer into an errored sample.
    f = await startRefineFixture({ target, env: { PROVIDER_TIMEOUT_MS: '30000' } });
    f.fake.setBehaviour({ mode: 'ok', reply: (text) => `Hello ${/\b([A-Z]{4,})\b/.exec(text)?.[1]}, all good here.` });
  });
  afterAll(() => f?.close());

  it('a sample that fails only its expect lists each term met or not; the summary counts the unmet; events carry both', async () => {
    const id = await persona({ tone: 'warm' });
    const evalId = await run(id);
    const body = await (await request(`/v1/personas/${id}/evals/${evalId}`)).json();
    expect(body.results.map((r: Record<string, unknown>) => [r.passed, r.score, r.expectations])).toEqual([
      [
        false,
        100,
        [
          { contains: 'ALPHA', met: true },
          { contains: 'BETA', met: false },
          { notContains: 'Hello', met: false },
          { notContains: 'goodbye', met: true },
        ],
      ],
      [true, 100, [{ contains: 'GAMMA', met: true }]],
      [true, 100, []],
    ]);
    expect(body.summary).toMatchObject({ passRate: 0.6667, failedExpectations: 2 });
    process.stdout.write(`a failed expectation (${target.engine}): ${JSON.stringify(body.results[0].expectations)}, summary.failedExpectations ${body.summary.failedExpectations}\n`);

    const events = parseEventStream(await (await request(`/v1/personas/${id}/evals/${evalId}/events`)).text());
    const results = events.filter((event) => event.event === 'result').map((event) => event.data as { sampleId: string; expectations: unknown });
    expect(results.find((result) => result.sampleId === body.results[0].sampleId)?.expectations).toEqual(body.results[0].expectations);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { summary: { failedExpectations: 2 } } });
  });

  it('a run stored before results reported expectations reads: results without them, failedExpectations null', async () => {
    const id = await persona({ tone: 'warm' });
    const evalId = await run(id);
    const { db } = f.server.storage;
    // As the previous release wrote them.
    for (const row of await db.selectFrom('eval_results').select(['seq', 'result']).where('eval_id', '=', evalId).execute()) {
      const { expectations: _dropped, ...result } = JSON.parse(row.result);
      await db.updateTable('eval_results').set({ result: JSON.stringify(result) }).where('eval_id', '=', evalId).where('seq', '=', row.seq).execute();
    }
    const stored = await db.selectFrom('eval_runs').select('summary').where('id', '=', evalId).executeTakeFirstOrThrow();
    const { failedExpectations: _count, ...summary } = JSON.parse(stored.summary);
    await db.updateTable('eval_runs').set({ summary: JSON.stringify(summary) }).where('id', '=', evalId).execute();

    const res = await request(`/v1/personas/${id}/evals/${evalId}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.summary.failedExpectations).toBeNull();
    expect(body.results.map((r: Record<string, unknown>) => [r.passed, 'expectations' in r])).toEqual([[false, false], [true, false], [true, false]]);
    expect((await (await request(`/v1/personas/${id}/evals`)).json()).find((r: { id: string }) => r.id === evalId).summary.failedExpectations).toBeNull();
    const events = parseEventStream(await (await request(`/v1/personas/${id}/evals/${evalId}/events`)).text());
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { summary: { failedExpectations: null } } });
  });

  it('a judged sample whose persona has nothing to rate: no judge call, judge.warning says why', async () => {
    const id = await persona({ avoid: ['synergy'] });
    const evalId = await run(id, { judge: true });
    const body = await (await request(`/v1/personas/${id}/evals/${evalId}`)).json();
    expect(body.results[2].judge).toEqual({
      provider: 'openai',
      model: 'gpt-5.4-mini',
      ratings: [],
      warning:
        'persona "Expecting" has no descriptive attributes (description, tone, formality, audience, personality, readingLevel, language, locale, length, instructions, or a key of its own) to rate; no judge call was made',
    });
    expect(body.summary.usage.providerCalls).toBe(3);
  });
});
