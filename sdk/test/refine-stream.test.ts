/** client.refineStream against a real server and the fake provider's real stream formats. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../../test/helpers/refine-fixture.js';
import { PersonaRefine, PersonaRefineError, type RetryEvent } from '../src/index.js';
import type { RefineStream, RefineStreamInput } from '../src/refine-stream.js';

const PERSONA = { name: 'Acme Support', attributes: { vocabulary: { customers: 'members' }, casing: ['GitHub'], avoid: ['synergy'] } };
const REPLY = 'Our customers can find us on github now — café ☕ 日本語, no synergy needed.';
const FIXED = 'Our members can find us on GitHub now — café ☕ 日本語, no synergy needed.';
/** Long enough that pieces are shown before the failure that follows its first 40 pieces. */
const LONG = `${REPLY} The team answers every question on the same day, and each answer is checked twice.`;

describe('client.refineStream', () => {
  let f: RefineFixture;
  let client: PersonaRefine;
  let personaId: string;
  const retries: RetryEvent[] = [];
  const input = (provider = 'anthropic'): RefineStreamInput => ({ provider, providerApiKey: callerKey(provider), personaId, content: 'Tell our customers.' });
  const collect = async (stream: RefineStream) => {
    const pieces: string[] = [];
    for await (const piece of stream) pieces.push(piece);
    return pieces;
  };
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (e: unknown) => e as PersonaRefineError);

  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '5000' } });
    client = new PersonaRefine({ apiKey: f.server.key, baseUrl: f.server.url, onRetry: (event) => retries.push(event) });
    personaId = (await client.personas.create(PERSONA)).id;
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.fake.reset();
    retries.length = 0;
  });

  it.each(['openai', 'anthropic', 'google', 'groq'])('through %s: pieces as they come, fixed in flight, then the result', async (provider) => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY, pieceChars: 3, pieceDelayMs: 5 });
    const stream = client.refineStream(input(provider));
    const pieces = await collect(stream);
    const result = await stream.result;
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece).not.toMatch(/customers|github/);
    expect(pieces.join('')).toBe(FIXED);
    expect(result).toEqual({ response: FIXED });
    expect(JSON.stringify(result)).toBe(JSON.stringify({ response: FIXED }));
    expect(result.violations).toEqual({ avoid: 1 });
    expect(result.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number), providerCalls: 1 });
    expect(result.personaVersion).toBe(1);
  });

  it('the iterator returns the result as its last value', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const iterator = client.refineStream(input())[Symbol.asyncIterator]();
    let next = await iterator.next();
    while (!next.done) next = await iterator.next();
    expect(next.value).toEqual({ response: FIXED });
    expect(next.value.violations).toEqual({ avoid: 1 });
  });

  it('a provider error mid-stream throws the typed error after the pieces already given, and is not retried', async () => {
    f.fake.setBehaviour({ mode: 'streamError', reply: LONG, failAfterPieces: 40, pieceDelayMs: 5 });
    const stream = client.refineStream(input());
    const pieces: string[] = [];
    const error = await failure((async () => { for await (const piece of stream) pieces.push(piece); })());
    expect(pieces.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ kind: 'http', status: 502, source: 'provider', requestId: expect.any(String) });
    expect(error.message).toMatch(/^provider "anthropic" (failed|is overloaded) \(HTTP 5\d\d\): /);
    expect(error.message).not.toContain(callerKey('anthropic').slice(4, 10));
    expect(await failure(stream.result)).toBe(error);
    expect(f.fake.requestCount).toBe(1);
    expect(retries).toEqual([]);
  });

  it('a stream cut mid-way throws, not a clean end', async () => {
    f.fake.setBehaviour({ mode: 'streamCut', reply: LONG, failAfterPieces: 40, pieceDelayMs: 5 });
    const stream = client.refineStream(input('openai'));
    const pieces: string[] = [];
    const error = await failure((async () => { for await (const piece of stream) pieces.push(piece); })());
    expect(pieces.length).toBeGreaterThan(0);
    expect(error).toMatchObject({ kind: 'http', status: 502 });
    expect(f.fake.requestCount).toBe(1);
  });

  it('a failure before the stream starts is the usual typed JSON error', async () => {
    const error = await failure(collect(client.refineStream({ ...input(), personaId: '0190b5c4-0000-7000-8000-000000000000' })));
    expect(error).toMatchObject({ kind: 'http', status: 404, source: 'service' });
    f.fake.setBehaviour('rejectKey');
    const rejected = await failure(collect(client.refineStream(input())));
    expect(rejected).toMatchObject({ kind: 'http', status: 400, source: 'provider' });
  });

  it('is retried when it fails before its first piece (same Idempotency-Key), then succeeds', async () => {
    // Cut after one piece: too little to show, so the stream's first event is its 502 error.
    f.fake.enqueue({ mode: 'streamCut', reply: REPLY, failAfterPieces: 1 });
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const stream = client.refineStream(input());
    expect((await collect(stream)).join('')).toBe(FIXED);
    expect(retries.map((r) => r.error.status)).toEqual([502]);
    expect(f.fake.requestCount).toBe(2);
  });

  it('aborting the signal mid-stream throws "aborted" and closes the provider stream', async () => {
    f.fake.setBehaviour({ mode: 'streamStall', reply: LONG, failAfterPieces: 40, pieceDelayMs: 5 });
    const controller = new AbortController();
    const stream = client.refineStream(input(), { signal: controller.signal });
    const error = await failure((async () => {
      for await (const _piece of stream) controller.abort();
    })());
    expect(error).toMatchObject({ kind: 'aborted', status: 0 });
    await f.fake.waitForClientClose(f.fake.requests[0]!);
  });

  it('leaving the loop early closes the connection, which stops the provider', async () => {
    f.fake.setBehaviour({ mode: 'streamStall', reply: LONG, failAfterPieces: 40, pieceDelayMs: 5 });
    const stream = client.refineStream(input());
    for await (const piece of stream) {
      expect(piece).not.toBe('');
      break;
    }
    expect(await failure(stream.result)).toMatchObject({ kind: 'aborted' });
    await f.fake.waitForClientClose(f.fake.requests[0]!);
  });

  it('a replay with the same Idempotency-Key gives the stored text as one piece without calling the provider', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const idempotencyKey = `sdk-stream-${Date.now()}`;
    const first = client.refineStream(input(), { idempotencyKey });
    expect((await collect(first)).length).toBeGreaterThan(1);
    const again = client.refineStream(input(), { idempotencyKey });
    expect(await collect(again)).toEqual([FIXED]);
    expect(await again.result).toEqual(await first.result);
    expect((await again.result).violations).toEqual({ avoid: 1 });
    expect(f.fake.requestCount).toBe(1);
  });

  it('can be iterated only once', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const stream = client.refineStream(input());
    await collect(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(TypeError);
  });
});
