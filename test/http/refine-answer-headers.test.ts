/**
 * A refine's answer headers are one presentation of one run (src/routes/refine-answer.ts): the plain
 * answer, the live stream (what is known before its first byte), and the replays of both carry the
 * same headers, replays without X-Cache/Age
 * (docs/usage-cache-fallbacks.md, "Replays, streams and browsers").
 * Compared by name, so a copy that forgets a header fails here.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseEventStream } from '../helpers/event-stream.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const PERSONA = { name: 'Acme support', attributes: { tone: 'warm', avoid: ['synergy'] } };
/** Nothing a judge could rate: the judge's headers are its warning instead of ratings. */
const UNRATED = { name: 'Acme rules', attributes: { avoid: ['synergy'] } };
// Keeps an `avoid` finding whatever the repair call says, so X-Persona-Violations is there too.
const REPLY = 'Our synergy keeps your ticket closed.';

/** Every response has these, or every stream, whatever it answers. */
const NOT_THE_ANSWER = new Set(['x-request-id', 'x-service-version', 'x-accel-buffering']);

/** The answer's own headers: X-* and Age, name → value. */
function answerHeaders(res: Response): Record<string, string> {
  return Object.fromEntries([...res.headers].filter(([name]) => (name.startsWith('x-') || name === 'age') && !NOT_THE_ANSWER.has(name)));
}
const names = (headers: Record<string, string>) => Object.keys(headers).sort();

describe("a refine's answer headers, plain, streamed and replayed", () => {
  let f: RefineFixture;
  let personaId: string;
  let unratedId: string;
  const refine = (stream: boolean, key: string, persona = personaId) =>
    f.server.request('/v1/refine', {
      method: 'POST',
      headers: { 'idempotency-key': key, 'cache-control': 'no-cache' },
      json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId: persona, content: 'Your ticket was closed.', judge: true, stream },
    });

  beforeAll(async () => {
    // A judge that timed out on a loaded machine would answer X-Persona-Judge-Error instead of what is compared.
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '15000' } });
    const create = async (json: object) => (await (await f.server.request('/v1/personas', { method: 'POST', json })).json()).id as string;
    personaId = await create(PERSONA);
    unratedId = await create(UNRATED);
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it.each([
    ['rated by the judge', 'x-persona-ratings', () => personaId],
    ['with nothing for the judge to rate', 'x-persona-judge-warning', () => unratedId],
  ])('a streamed answer replays the headers a plain answer replays, and every header its live stream had: a persona %s', async (_, judgeHeader, persona) => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const run = `${judgeHeader}-${Date.now()}`;
    const plain = await refine(false, `plain-${run}`, persona());
    expect(plain.status).toBe(200);
    await plain.text();
    const plainReplay = await refine(false, `plain-${run}`, persona());
    expect(plainReplay.headers.get('idempotent-replayed')).toBe('true');
    await plainReplay.text();
    const live = await refine(true, `stream-${run}`, persona());
    expect(live.status).toBe(200);
    const done = parseEventStream(await live.text()).at(-1)!;
    expect(done.event).toBe('done');
    const streamReplay = await refine(true, `stream-${run}`, persona());
    expect(streamReplay.headers.get('idempotent-replayed')).toBe('true');
    await streamReplay.text();

    const answered = answerHeaders(plain);
    const replayed = answerHeaders(plainReplay);
    const liveHeaders = answerHeaders(live);
    const streamReplayed = answerHeaders(streamReplay);
    // Every part of the answer is there to be forgotten by a copy.
    expect(names(answered)).toEqual(['x-cache', judgeHeader, 'x-persona-score', 'x-persona-version', 'x-persona-violations', 'x-provider', 'x-usage'].sort());
    expect(names(replayed)).toEqual(names(answered).filter((name) => name !== 'x-cache'));
    expect(names(streamReplayed)).toEqual(names(replayed));
    // The live stream has what is known before its first byte, as the plain answer has it; its replay the same values, less X-Cache.
    expect(names(liveHeaders)).toEqual(['x-cache', 'x-persona-version', 'x-provider']);
    for (const name of names(liveHeaders)) expect(liveHeaders[name], name).toBe(answered[name]);
    const { 'x-cache': _cache, ...liveReplayed } = liveHeaders;
    expect(streamReplayed).toMatchObject(liveReplayed);
    // What ended the stream, as the plain answer's headers say it.
    const { score, violations, usage } = done.data as { score: number; violations: Record<string, number>; usage: Record<string, number> };
    expect(streamReplayed['x-persona-score']).toBe(String(score));
    expect(streamReplayed['x-persona-violations']).toBe(Object.entries(violations).map(([rule, n]) => `${rule}=${n}`).join(','));
    expect(streamReplayed['x-usage']).toBe(`input_tokens=${usage.inputTokens}, output_tokens=${usage.outputTokens}, provider_calls=${usage.providerCalls}`);
    expect(streamReplayed[judgeHeader]).toBe(answered[judgeHeader]);
  });

  it("a judged refine's X-Persona-Score is the score POST /v1/check gives its answer with the same judge", async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const content = 'Your ticket was closed.';
    const refined = await refine(false, `score-${Date.now()}`);
    const { response } = await refined.json();
    const judge = { provider: 'openai', providerApiKey: callerKey('openai'), model: refined.headers.get('x-provider')!.split('/')[1] };
    const checked = await f.server.request('/v1/check', { method: 'POST', json: { personaId, content: response, original: content, judge } });
    expect(checked.status).toBe(200);
    const verdict = await checked.json();
    expect(verdict.scores.voice).toBeDefined();
    expect(refined.headers.get('x-persona-score')).toBe(String(verdict.score));
  });
});
