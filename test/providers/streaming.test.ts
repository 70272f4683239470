/** Each provider's streamed answer through the registry, against the fake speaking its real stream format. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientAbortedError } from '../../src/errors.js';
import type { ProviderTextStream } from '../../src/providers/index.js';
import { failedCallOf } from '../../src/providers/provider-call.js';
import { type FakeProviderServer, type RecordedRequest, startFakeProviderServer } from '../fakes/provider-server.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { call, callerKeys, domainRejection, keyFor, OPERATOR_ID, registryFor, rejection, within } from './provider-test-kit.js';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

// One provider per wire format, plus Mistral (usage unasked) and an operator-declared endpoint.
const formats = ['openai', 'groq', 'mistral', OPERATOR_ID, 'anthropic', 'google'];
/** Multi-byte characters, cut by the fake between events and inside characters. */
const REPLY = 'Ahoy, crew! Café ☕ naïve 日本語 — we sail tonight 🚢.';

async function collect(stream: ProviderTextStream): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of stream.pieces) if (typeof piece === 'string') pieces.push(piece);
  return pieces;
}

describe.each(formats)('%s streaming', (id) => {
  it('streams the answer in pieces, reports usage, and asks for a stream on the wire', async () => {
    fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const stream = await registryFor(fake).stream(id, call(id), within(5_000));
    const pieces = await collect(stream);
    expect(pieces.join('')).toBe(REPLY);
    expect(pieces.length).toBeGreaterThan(5);
    expect(stream.usage()).toEqual({ inputTokens: expect.any(Number), outputTokens: Math.ceil(REPLY.length / 4) });
    const [request] = fake.requests;
    expect(request?.stream).toBe(true);
    if (id === 'google') expect(request?.path).toMatch(/:streamGenerateContent\?alt=sse$/);
  });

  it('a provider error event after the first text fails the stream with the mapped error, key scrubbed', async () => {
    fake.setBehaviour({ mode: 'streamError', reply: REPLY, failAfterPieces: 3 });
    const stream = await registryFor(fake).stream(id, call(id), within(5_000));
    const error = await domainRejection(collect(stream));
    expect(error).toMatchObject({ code: 'provider_failed', status: 502, source: 'provider' });
    expect(error.message).toMatch(new RegExp(`^provider "${id}" (failed|is overloaded) \\(HTTP 5\\d\\d\\): `));
    expect(error.message).not.toContain(keyFor(id));
    expect(fake.requestCount).toBe(1);
  });

  it('a connection cut mid-stream is a 502, not a clean end', async () => {
    fake.setBehaviour({ mode: 'streamCut', reply: REPLY, failAfterPieces: 3 });
    const stream = await registryFor(fake).stream(id, call(id), within(5_000));
    const error = await domainRejection(collect(stream));
    expect(error).toMatchObject({ code: 'provider_failed', status: 502 });
    expect(error.message).toBe(`provider "${id}" could not be reached (connection closed before the answer was complete)`);
  });

  it('a stream that stalls ends with a 504 at the deadline, which bounds the whole stream', async () => {
    fake.setBehaviour({ mode: 'streamStall', reply: REPLY, failAfterPieces: 3 });
    const started = Date.now();
    const stream = await registryFor(fake).stream(id, call(id), { ...within(600), timeoutMs: 600 });
    const error = await domainRejection(collect(stream));
    expect(error).toMatchObject({ code: 'provider_timeout', status: 504 });
    expect(error.message).toBe(`provider "${id}" did not answer within 600 ms`);
    // The stall never ends: any bound well short of the test's timeout proves the deadline ended it.
    expect(Date.now() - started).toBeLessThan(600 + 2_000);
    await fake.waitForClientClose(fake.requests[0] as RecordedRequest);
  });

  it('a client that goes away mid-stream aborts the provider stream', async () => {
    fake.setBehaviour({ mode: 'streamStall', reply: REPLY, failAfterPieces: 3 });
    const client = new AbortController();
    const stream = await registryFor(fake).stream(id, call(id, { signal: client.signal }), within(5_000));
    const reading = rejection(collect(stream));
    client.abort();
    expect(await reading).toBeInstanceOf(ClientAbortedError);
    await fake.waitForClientClose(fake.requests[0] as RecordedRequest);
  });

  it('a consumer that stops reading closes the provider stream', async () => {
    fake.setBehaviour({ mode: 'ok', reply: REPLY, pieceDelayMs: 50 });
    const stream = await registryFor(fake).stream(id, call(id), within(5_000));
    await stream.pieces.next();
    await stream.pieces.return(undefined);
    await fake.waitForClientClose(fake.requests[0] as RecordedRequest);
  });
});

describe('before the first text, a stream fails like a whole answer', () => {
  it.each(formats)('%s: a rejected key is the same 400 as without streaming, and is not retried', async (id) => {
    fake.setBehaviour('rejectKey');
    const error = await domainRejection(registryFor(fake).stream(id, call(id), within(5_000)));
    expect(error).toMatchObject({ code: 'provider_rejected_request', status: 400 });
    expect(error.message).toBe(`provider "${id}" rejected providerApiKey (HTTP ${id === 'google' ? 400 : 401})`);
    expect(fake.requestCount).toBe(1);
  });

  it.each(formats)('%s: a 429 is retried, then answered as the provider rate limit with Retry-After', async (id) => {
    fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 0 });
    const error = await domainRejection(registryFor(fake, { maxRetries: 1 }).stream(id, call(id), within(5_000)));
    expect(error).toMatchObject({ code: 'provider_rate_limited', status: 429 });
    expect(fake.requestCount).toBe(2);
  });

  it.each(formats)('%s: an error event before any text is retried like a 5xx answer', async (id) => {
    fake.enqueue({ mode: 'streamError', reply: REPLY, failAfterPieces: 0 });
    const stream = await registryFor(fake).stream(id, call(id), within(5_000));
    expect(stream.attempts).toBe(2);
    fake.setBehaviour('ok');
    expect((await collect(stream)).join('')).toMatch(/^Rewritten: /);
  });

  it.each(['generate', 'stream'] as const)("%s: the call's retry budget overrides the registry's, and the attempts come back with the result", async (method) => {
    const registry = registryFor(fake, { maxRetries: 5 });
    fake.setBehaviour('serverError');
    const failing = call('openai');
    const error = await registry[method]('openai', failing, { ...within(5_000), maxRetries: 1 }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'provider_failed' });
    expect(fake.requestCount).toBe(2);
    // The error carries what the call came to: two attempts that billed nothing, a failure that may pass.
    expect(failedCallOf(error)).toEqual({ failedAttempts: 2, mayPass: true });

    fake.reset();
    fake.enqueue('serverError');
    const answered = await registry[method]('openai', failing, { ...within(5_000), maxRetries: 1 });
    expect([answered.attempts, answered.failedAttempts]).toEqual([2, 1]);
  });

  it('a stream that ends without any text is a 502 "answered without any text"', async () => {
    fake.setBehaviour({ mode: 'ok', pieces: ['  ', '\n'] });
    const error = await domainRejection(registryFor(fake).stream('anthropic', call('anthropic'), within(5_000)));
    expect(error.message).toBe('provider "anthropic" answered without any text');
  });

  it('keys never appear in a streamed error', async () => {
    for (const id of formats) {
      fake.setBehaviour({ mode: 'streamError', message: `bad key ${callerKeys[id]} (…${keyFor(id).slice(-7)})`, failAfterPieces: 2 });
      const stream = await registryFor(fake).stream(id, call(id), within(5_000));
      const error = await domainRejection(collect(stream));
      expect(error.message).toContain('bad key');
      expect(secretFragmentsIn(error.message, keyFor(id))).toEqual([]);
    }
  });
});
