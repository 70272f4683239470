/**
 * Evaluation sets and gated promotion over HTTP, on both engines, against the
 * fake providers (docs/evaluations.md): samples with their ETag, runs and their
 * statuses, a provider failing some samples, cancel, the per-account bound,
 * events joined midway, compare, the label gate (restore included), and no
 * provider key anywhere it must not be.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeBehaviour } from '../fakes/provider-server.js';
import { parseEventStream, readUntil } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { storageTargets } from '../helpers/storage-targets.js';

const KEY = callerKey('openai');
const JUDGE_KEY = callerKey('anthropic');

/** Answers by the marker word each sample's content carries: clean, or with the persona's banned word. */
const replies = (bad: readonly string[]): FakeBehaviour => ({
  mode: 'ok',
  reply: (text) => {
    const marker = /\b(ALPHA|BETA|GAMMA)\b/.exec(text)?.[1] ?? 'NONE';
    return bad.includes(marker) ? `Hello ${marker}, pure synergy here.` : `Hello ${marker}, all good here.`;
  },
});

const SAMPLES = [
  { name: 'first', content: 'Say hi to ALPHA.', expect: { contains: ['ALPHA'] } },
  { content: 'Say hi to BETA.', expect: { notContains: ['goodbye'] } },
  { content: 'Say hi to GAMMA.' },
];

describe.each(storageTargets)('evaluations on $engine', (target) => {
  let fixture: RefineFixture;
  const seen: string[] = [];
  const request = async (path: string, init: RequestInit & { json?: unknown; key?: string | null } = {}) => {
    const response = await fixture.server.request(path, init);
    const text = await response.clone().text();
    seen.push(text);
    return response;
  };
  const newPersona = async (attributes: Record<string, unknown> = { avoid: ['synergy'] }) => {
    const id = (await (await request('/v1/personas', { method: 'POST', json: { name: 'Evaluated', attributes } })).json()).id as string;
    expect((await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: SAMPLES } })).status).toBe(200);
    return id;
  };
  const start = (id: string, body: Record<string, unknown> = {}) =>
    request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'openai', providerApiKey: KEY, ...body } });
  const finished = async (id: string, evalId: string) => {
    for (let i = 0; i < 200; i++) {
      const run = await (await request(`/v1/personas/${id}/evals/${evalId}`)).json();
      if (run.status !== 'queued' && run.status !== 'running') return run;
      // sleeps because this is the interval of a poll that returns what it found (expect.poll returns nothing)
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the run did not end');
  };
  const run = async (id: string, body: Record<string, unknown> = {}) => {
    const started = await start(id, body);
    expect(started.status).toBe(202);
    return finished(id, (await started.json()).id);
  };

  beforeAll(async () => {
    fixture = await startRefineFixture({ target });
  });
  afterAll(() => fixture?.close());

  it('samples: GET before any PUT is empty with ETag "0"; PUT assigns ids, keeps an unchanged sample\'s id and gives a changed one a new id', async () => {
    const id = (await (await request('/v1/personas', { method: 'POST', json: { name: 'Samples' } })).json()).id as string;
    const empty = await request(`/v1/personas/${id}/samples`);
    expect(empty.headers.get('etag')).toBe('"0"');
    expect(await empty.json()).toEqual({ samples: [] });

    const put = await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: SAMPLES }, headers: { 'if-match': '"0"' } });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBe('"1"');
    const first = (await put.json()).samples as { id: string; content: string }[];
    expect(first.map(({ id: _id, ...rest }) => rest)).toEqual(SAMPLES);
    expect(new Set(first.map((s) => s.id)).size).toBe(3);

    // The GET body sent back with one sample edited, one left without its id, one new.
    const [a, b] = first;
    const edited = { samples: [{ ...a, content: 'Say hello to ALPHA.' }, { content: b!.content, expect: SAMPLES[1]!.expect }, first[2], { content: 'New' }] };
    const second = await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: edited, headers: { 'if-match': '"1"' } });
    expect(second.headers.get('etag')).toBe('"2"');
    const stored = await second.json();
    const ids = (stored.samples as { id: string }[]).map((s) => s.id);
    expect(ids[0]).not.toBe(a!.id);
    expect(ids.slice(1, 3)).toEqual([b!.id, first[2]!.id]);
    expect(new Set(ids).size).toBe(4);
    expect(await (await request(`/v1/personas/${id}/samples`)).json()).toEqual(stored);

    const stale = await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [] }, headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    expect((await stale.json()).message).toMatch(/samples' current ETag/);
    expect((await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [] }, headers: { 'if-match': '2' } })).status).toBe(400);
    const unknownId = await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ id: 'nope', content: 'x' }] } });
    expect(await unknownId.json()).toEqual({ error: 400, message: 'samples.0.id "nope" is not one of this persona\'s samples; leave id out for a new sample' });
    const tooMany = await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: Array.from({ length: 201 }, () => ({ content: 'x' })) } });
    expect(tooMany.status).toBe(400);
    // The documented maxima fit one body, in any script: 200 samples of 20,000 three-byte characters are 12 MB.
    const largest = Array.from({ length: 200 }, (_, i) => ({ name: `sample ${i}`, content: `${i} ${'語'.repeat(19_990)}` }));
    const full = await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: largest } });
    expect(full.status).toBe(200);
    expect((await full.json()).samples.map((sample: { content: string }) => sample.content)).toEqual(largest.map((sample) => sample.content));
    const overLimit = await request(`/v1/personas/${id}/samples`, { method: 'PUT', body: `{"samples":[{"content":"${'x'.repeat(16 * 1024 * 1024)}"}]}`, headers: { 'content-type': 'application/json' } });
    expect(await overLimit.json()).toEqual({ error: 413, message: `request body must be at most ${16 * 1024 * 1024} bytes` });
    const tooLong = await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'x'.repeat(20_001) }] } });
    expect(tooLong.status).toBe(400);
    expect((await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'x', colour: 1 }] } })).status).toBe(400);
    expect((await request('/v1/personas/0190a5f2-0000-7000-8000-000000000000/samples')).status).toBe(404);
    // Another account's persona is a 404 too.
    const other = await fixture.server.createAccount(`other-${target.engine}`);
    expect((await request(`/v1/personas/${id}/samples`, { key: other })).status).toBe(404);
  });

  it('a run: 202 with Location, then completed with a result per sample, the summary, and expect checked', async () => {
    fixture.fake.setBehaviour(replies(['GAMMA']));
    const id = await newPersona();
    const started = await start(id, { concurrency: 2 });
    expect(started.status).toBe(202);
    const queued = await started.json();
    expect(started.headers.get('location')).toBe(`/v1/personas/${id}/evals/${queued.id}`);
    expect(queued).toMatchObject({ personaId: id, version: 1, provider: 'openai', concurrency: 2, progress: { done: 0, total: 3 }, judge: null });
    const done = await finished(id, queued.id);
    expect(done.status).toBe('completed');
    expect(done.progress).toEqual({ done: 3, total: 3 });
    expect(done.results.map((r: { passed: boolean }) => r.passed)).toEqual([true, true, false]);
    expect(done.results[2]).toMatchObject({ score: 90, violations: [{ rule: 'avoid', severity: 'required' }] });
    expect(done.summary).toEqual({
      score: 96.7, passRate: 0.6667, minScore: null, errored: 0, violations: { avoid: 1 }, failedExpectations: 0,
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number), providerCalls: expect.any(Number) },
    });
    expect(done.summary.usage.providerCalls).toBeGreaterThanOrEqual(3);
    process.stdout.write(`run summary (${target.engine}): ${JSON.stringify(done.summary)}\n`);

    // An expectation not met fails a clean answer.
    await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'Say hi to ALPHA.', expect: { contains: ['BETA'] } }] } });
    expect((await run(id)).results[0]).toMatchObject({ passed: false, score: 100, expectations: [{ contains: 'BETA', met: false }] });
  });

  it('start refusals: no samples, version and label, unknown provider, missing key, bad concurrency, unknown version or label, another account', async () => {
    const bare = (await (await request('/v1/personas', { method: 'POST', json: { name: 'Bare' } })).json()).id as string;
    expect(await (await start(bare)).json()).toEqual({ error: 400, message: `persona "${bare}" has no samples to evaluate; PUT /v1/personas/${bare}/samples first` });
    const id = await newPersona();
    expect(await (await start(id, { version: 1, label: 'production' })).json()).toEqual({ error: 400, message: 'give version or label, not both' });
    expect((await (await start(id, { provider: 'nope' })).json()).message).toMatch(/^provider: unknown provider "nope"; supported: /);
    expect((await request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'openai' } })).status).toBe(400);
    expect((await start(id, { concurrency: 17 })).status).toBe(400);
    expect((await start(id, { concurrency: 0 })).status).toBe(400);
    expect(await (await start(id, { version: 9 })).json()).toEqual({ error: 404, message: `version 9 of persona "${id}" not found` });
    expect(await (await start(id, { label: 'canary' })).json()).toEqual({ error: 404, message: `label "canary" of persona "${id}" not found` });
    expect((await start(id, { judge: { provider: 'rules', providerApiKey: 'x' } })).status).toBe(400);
    const other = await fixture.server.createAccount(`starter-${target.engine}`);
    expect((await request(`/v1/personas/${id}/evals`, { method: 'POST', key: other, json: { provider: 'rules' } })).status).toBe(404);
    expect((await request(`/v1/personas/${id}/evals/0190a5f2-0000-7000-8000-000000000000`)).status).toBe(404);
    expect(await (await request(`/v1/personas/${id}/evals/not-an-id`)).json()).toEqual({ error: 404, message: 'evaluation not found' });
    // A key without the evals scope.
    const reader = (await (await request('/v1/keys', { method: 'POST', json: { name: 'reader', scopes: ['personas:read'] } })).json()).secret as string;
    expect(await (await request(`/v1/personas/${id}/evals`, { key: reader })).json()).toEqual({ error: 403, message: 'this key lacks the scope "evals"' });
    expect((await request(`/v1/personas/${id}/samples`, { key: reader })).status).toBe(200);
  });

  it('a label picks the version; runs list newest first in pages; a provider failing some samples leaves errors on those, the run completes', async () => {
    fixture.fake.setBehaviour(replies([]));
    const id = await newPersona();
    await request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Evaluated v2' } });
    await request(`/v1/personas/${id}/labels/staging`, { method: 'PUT', json: { version: 1 } });
    const byLabel = await run(id, { label: 'staging' });
    expect(byLabel.version).toBe(1);
    // One at a time, so the second sample is the one the provider refuses.
    fixture.fake.enqueue(replies([]), 'badRequest');
    const partial = await run(id, { concurrency: 1 });
    expect(partial.version).toBe(2);
    expect(partial.status).toBe('completed');
    expect(partial.results[1]).toEqual({
      sampleId: expect.any(String), response: null, score: null, scores: null, violations: [], passed: false, expectations: [],
      error: { error: 400, message: expect.stringMatching(/^provider "openai" /) },
    });
    expect(partial.results[0].passed).toBe(true);
    expect(partial.summary).toMatchObject({ score: 100, passRate: 0.6667, errored: 1 });

    fixture.fake.setBehaviour('rejectKey');
    const failed = await run(id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^every sample failed; the first: provider "openai" rejected providerApiKey/);
    fixture.fake.setBehaviour(replies([]));

    const page = await request(`/v1/personas/${id}/evals?limit=2`);
    const listed = await page.json();
    expect(listed.map((r: { id: string }) => r.id)).toEqual([failed.id, partial.id]);
    expect(listed[0]).not.toHaveProperty('results');
    const next = page.headers.get('link')!;
    expect(next).toBe(`</v1/personas/${id}/evals?limit=2&cursor=${partial.id}>; rel="next"`);
    const rest = await (await request(/<([^>]+)>/.exec(next)![1]!)).json();
    expect(rest.map((r: { id: string }) => r.id)).toEqual([byLabel.id]);
  });

  it('cancel keeps what finished; a second cancel is a 409; a third run while two are running is a 429 with Retry-After', async () => {
    fixture.fake.setBehaviour({ ...replies([]), mode: 'slow', delayMs: 400 });
    const id = await newPersona();
    const first = await (await start(id, { concurrency: 1 })).json();
    const second = await (await start(id, { concurrency: 1 })).json();
    const third = await start(id);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect((await third.json()).message).toBe('this account already has 2 evaluations running, the most it may have at once; retry when one ends');

    await expect.poll(async () => (await (await request(`/v1/personas/${id}/evals/${first.id}`)).json()).progress.done, { interval: 50 }).toBeGreaterThanOrEqual(1);
    const cancelled = await request(`/v1/personas/${id}/evals/${first.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    const body = await cancelled.json();
    expect(body.status).toBe('cancelled');
    expect(body.finishedAt).not.toBeNull();
    const again = await request(`/v1/personas/${id}/evals/${first.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe(`evaluation "${first.id}" already ended (cancelled); only a queued or running one can be cancelled`);
    // sleeps because it shows the run stays cancelled as its samples in flight end: an absence has nothing to poll
    await new Promise((r) => setTimeout(r, 900));
    const after = await (await request(`/v1/personas/${id}/evals/${first.id}`)).json();
    expect(after.status).toBe('cancelled');
    expect(after.results.length).toBeGreaterThanOrEqual(1);
    expect(after.results.length).toBeLessThan(3);
    expect(after.progress.done).toBe(after.results.length);
    // The freed place takes a new run.
    expect((await start(id, { provider: 'rules', providerApiKey: undefined })).status).toBe(202);
    await finished(id, second.id);
    fixture.fake.setBehaviour(replies([]));
  });

  it('events: a client joining midway gets the results so far, then the rest, then done with the summary', async () => {
    fixture.fake.setBehaviour({ ...replies([]), mode: 'slow', delayMs: 300 });
    const id = await newPersona();
    const started = await (await start(id, { concurrency: 1 })).json();
    await expect.poll(async () => (await (await request(`/v1/personas/${id}/evals/${started.id}`)).json()).progress.done, { interval: 30 }).toBeGreaterThanOrEqual(1);
    const response = await request(`/v1/personas/${id}/evals/${started.id}/events`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await readUntil(response, (t) => t.includes('event: done') || t.includes('event: error'));
    seen.push(text);
    const events = parseEventStream(text);
    expect(events[0]!.event).toBe('result');
    expect(events.filter((e) => e.event === 'result')).toHaveLength(3);
    expect(events.at(-1)).toEqual({ event: 'done', data: { status: 'completed', summary: expect.objectContaining({ score: 100, passRate: 1 }) } });
    expect(events.filter((e) => e.event === 'progress').at(-1)!.data).toEqual({ done: 3, total: 3 });
    // Joined after the end: the whole story at once.
    const late = parseEventStream(await (await request(`/v1/personas/${id}/evals/${started.id}/events`)).text());
    expect(late.map((e) => e.event)).toEqual(['result', 'result', 'result', 'progress', 'done']);
    expect((await request(`/v1/personas/${id}/evals/0190a5f2-0000-7000-8000-000000000000/events`)).status).toBe(404);
    fixture.fake.setBehaviour(replies([]));
  });

  it('event streams: an account holds at most 16 open on an instance, the 17th is a 429 until they end', async () => {
    fixture.fake.setBehaviour({ ...replies([]), mode: 'slow', delayMs: 2_000 });
    const id = await newPersona();
    const started = await (await start(id, { concurrency: 1 })).json();
    const path = `/v1/personas/${id}/evals/${started.id}/events`;
    const open = await Promise.all(Array.from({ length: 16 }, () => fixture.server.request(path)));
    expect(open.map((response) => response.status)).toEqual(Array(16).fill(200));
    const refused = await request(path);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({ error: 429, message: 'this account already has 16 evaluation event streams open here; close one' });
    // Another account is not held back by this one's streams.
    const other = await fixture.server.createAccount(`streams-${target.engine}`);
    const theirs = (await (await request('/v1/personas', { method: 'POST', key: other, json: { name: 'Theirs' } })).json()).id as string;
    expect((await request(`/v1/personas/${theirs}/samples`, { method: 'PUT', key: other, json: { samples: SAMPLES } })).status).toBe(200);
    const theirRun = await (await request(`/v1/personas/${theirs}/evals`, { method: 'POST', key: other, json: { provider: 'rules' } })).json();
    const theirEvents = await request(`/v1/personas/${theirs}/evals/${theirRun.id}/events`, { key: other });
    expect(theirEvents.status).toBe(200);
    expect(parseEventStream(await theirEvents.text()).at(-1)!.event).toBe('done');
    // Once the run ends, every stream ends with it and frees its place.
    await request(`/v1/personas/${id}/evals/${started.id}/cancel`, { method: 'POST' });
    const ends = await Promise.all(open.map(async (response) => parseEventStream(await response.text()).at(-1)!.event));
    expect(ends).toEqual(Array(16).fill('error'));
    const again = await request(path);
    expect(again.status).toBe(200);
    fixture.fake.setBehaviour(replies([]));
  });

  it('compare: per sample scores and delta; a fall of 10 that fails a sample is a regression; compare is not read as an id', async () => {
    fixture.fake.setBehaviour(replies([]));
    const id = await newPersona();
    const base = await run(id);
    fixture.fake.setBehaviour(replies(['BETA']));
    const head = await run(id);
    const compared = await request(`/v1/personas/${id}/evals/compare?base=${base.id}&head=${head.id}`);
    expect(compared.status).toBe(200);
    const body = await compared.json();
    const beta = head.results[1].sampleId;
    expect(body.regressions).toEqual([{ sampleId: beta, base: { score: 100, passed: true }, head: { score: 90, passed: false }, delta: -10 }]);
    expect(body.samples).toHaveLength(3);
    expect(body.samples[0]).toEqual({ sampleId: head.results[0].sampleId, base: { score: 100, passed: true }, head: { score: 100, passed: true }, delta: 0 });
    process.stdout.write(`compare (${target.engine}): ${JSON.stringify(body)}\n`);
    expect((await request(`/v1/personas/${id}/evals/compare?base=${base.id}`)).status).toBe(400);
    expect((await request(`/v1/personas/${id}/evals/compare?base=${base.id}&head=0190a5f2-0000-7000-8000-000000000000`)).status).toBe(404);
    fixture.fake.setBehaviour(replies([]));
  });

  it('gate: production with a policy moves to a version only with a completed run of it that meets the policy (restore included); the audit event names the run', async () => {
    const id = await newPersona();
    await request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Evaluated v2' } });
    const policy = await request(`/v1/personas/${id}/labels/production/policy`, { method: 'PUT', json: { minScore: 80, minPassRate: 0.9, maxAgeDays: 7 } });
    expect(policy.status).toBe(200);
    const move = (version: number) => request(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version } });

    const none = await move(2);
    expect(none.status).toBe(409);
    expect(await none.json()).toEqual({ error: 409, message: 'label "production" needs an evaluation of version 2 with score ≥ 80 and pass rate ≥ 0.9 from the last 7 days; none exists' });

    // Two required findings in every answer: 80 each, but none passes.
    fixture.fake.setBehaviour({ mode: 'ok', reply: 'Synergy and more synergy.' });
    const poor = await run(id, { version: 2 });
    expect(poor.summary).toMatchObject({ score: 80, passRate: 0 });
    const refused = await move(2);
    expect(refused.status).toBe(409);
    const refusal = await refused.json();
    expect(refusal).toEqual({ error: 409, message: `label "production" needs an evaluation of version 2 with score ≥ 80 and pass rate ≥ 0.9 from the last 7 days; the latest, ${poor.id}, scored 80 with pass rate 0` });
    process.stdout.write(`refused (${target.engine}): ${JSON.stringify(refusal)}\n`);

    fixture.fake.setBehaviour({ mode: 'ok', reply: 'Synergy once.' });
    await request(`/v1/personas/${id}/labels/production/policy`, { method: 'PUT', json: { minScore: 95, minPassRate: 0.9 } });
    const low = await run(id, { version: 2 });
    expect(await (await move(2)).json()).toEqual({ error: 409, message: `label "production" needs an evaluation of version 2 with score ≥ 95 and pass rate ≥ 0.9; the latest, ${low.id}, scored 90` });

    fixture.fake.setBehaviour(replies([]));
    const good = await run(id, { version: 2 });
    const allowed = await move(2);
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ production: 2 });
    process.stdout.write(`allowed (${target.engine}): production → 2 by ${good.id}\n`);
    const events = await (await request(`/v1/audit?personaId=${id}&limit=1`)).json();
    expect(events[0]).toMatchObject({ action: 'label.set', label: 'production', version: 2, detail: `evalId=${good.id}` });

    // A run of version 2 says nothing of version 1: a rollback is a move like any other.
    expect((await move(1)).status).toBe(409);
    // Restore makes version 3 (the content of 1): it needs its own run before production may point at it.
    expect((await request(`/v1/personas/${id}/versions/1/restore`, { method: 'POST' })).status).toBe(200);
    expect((await (await move(3)).json()).message).toMatch(/evaluation of version 3 with score ≥ 95 and pass rate ≥ 0.9; none exists$/);
    const ofRestored = await run(id);
    expect(ofRestored.version).toBe(3);
    expect((await move(3)).status).toBe(200);
    // Removing a label is not a move to a version: only protection applies.
    expect((await request(`/v1/personas/${id}/labels/production`, { method: 'DELETE' })).status).toBe(204);
  });

  it('gate: a run with an errored sample, or made with rules, never meets it, and the 409 says which; the summary counts the errored samples', async () => {
    fixture.fake.setBehaviour(replies([]));
    const id = await newPersona();
    const ten = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'].map((name) => ({ name, content: 'Say hi to ALPHA.' }));
    expect((await request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: ten } })).status).toBe(200);
    await request(`/v1/personas/${id}/labels/production/policy`, { method: 'PUT', json: { minScore: 90 } });
    const move = () => request(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version: 1 } });
    const needs = 'label "production" needs an evaluation of version 1 with score ≥ 90';

    // One at a time: the first sample is answered, the provider refuses the nine others.
    fixture.fake.enqueue(replies([]), ...Array<'badRequest'>(9).fill('badRequest'));
    const mostlyErrored = await run(id, { concurrency: 1 });
    expect(mostlyErrored).toMatchObject({ status: 'completed', summary: { score: 100, errored: 9 } });
    expect(await (await move()).json()).toEqual({
      error: 409, message: `${needs}; the latest, ${mostlyErrored.id}, has 9 errored samples of 10, and a run with an errored sample meets no gate`,
    });

    const byRules = await run(id, { provider: 'rules', providerApiKey: undefined });
    expect(byRules).toMatchObject({ status: 'completed', summary: { score: 100, errored: 0 } });
    expect(await (await move()).json()).toEqual({
      error: 409, message: `${needs}; the latest, ${byRules.id}, was made with provider "rules", which calls no model, and meets no gate`,
    });

    const clean = await run(id);
    expect(clean.summary).toMatchObject({ score: 100, errored: 0 });
    expect(await (await move()).json()).toEqual({ production: 1 });
  });

  it('a persona deleted takes its samples and runs with it', async () => {
    const id = await newPersona();
    await run(id, { provider: 'rules', providerApiKey: undefined });
    expect((await request(`/v1/personas/${id}`, { method: 'DELETE' })).status).toBe(204);
    const { db } = fixture.server.storage;
    expect(await db.selectFrom('eval_sample_sets').selectAll().where('persona_id', '=', id).execute()).toEqual([]);
    expect(await db.selectFrom('eval_runs').selectAll().where('persona_id', '=', id).execute()).toEqual([]);
  });

  it('judge: the setting is answered without its key, and the key reaches no row, log, event or answer', async () => {
    fixture.fake.setBehaviour(replies([]));
    const id = await newPersona();
    const judged = await run(id, { judge: { provider: 'anthropic', providerApiKey: JUDGE_KEY } });
    expect(judged.judge).toEqual({ provider: 'anthropic', model: expect.any(String) });
    // Passed through the refine: each answer carries the judge's verdict.
    for (const result of judged.results) expect(result.judge).toBeDefined();
    const { db } = fixture.server.storage;
    const rows = JSON.stringify([
      await db.selectFrom('eval_runs').selectAll().execute(),
      await db.selectFrom('eval_results').selectAll().execute(),
      await db.selectFrom('eval_sample_sets').selectAll().execute(),
      await db.selectFrom('audit_events').selectAll().execute(),
    ]);
    for (const key of [KEY, JUDGE_KEY]) {
      expect(secretFragmentsIn(rows, key)).toEqual([]);
      expect(secretFragmentsIn(fixture.server.logs.join(''), key)).toEqual([]);
      expect(secretFragmentsIn(seen.join(''), key)).toEqual([]);
    }
  });
});
