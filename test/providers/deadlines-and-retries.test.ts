import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientAbortedError } from '../../src/errors.js';
import { type FakeProviderServer, type RecordedRequest, startFakeProviderServer } from '../fakes/provider-server.js';
import { call, domainRejection, registryFor, rejection, within } from './provider-test-kit.js';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
  // The SDKs build their schemas on first use (~300 ms for OpenAI); pay that here, not in a timed test.
  const registry = registryFor(fake);
  await Promise.all(registry.ids().map((id) => registry.generate(id, call(id), within(10_000))));
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/**
 * How much later than the deadline an answer may come: timer and event-loop delay when parallel
 * test files share a starved machine (over a second seen in CI). A provider that hangs never
 * answers, so any bound short of the test's own timeout still proves the deadline ended the call.
 */
const SLACK_MS = 2_000;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

describe('deadline', () => {
  it.each(['openai', 'anthropic', 'google', 'groq'])(
    '%s: a provider that accepts and never answers is a 504 at the deadline',
    async (id) => {
      fake.setBehaviour('hang');
      const budget = { ...within(400), timeoutMs: 400 };
      const { value: error, ms } = await timed(() => domainRejection(registryFor(fake).generate(id, call(id), budget)));
      expect(error).toMatchObject({ code: 'provider_timeout', status: 504, source: 'provider' });
      expect(error.message).toMatch(new RegExp(`^provider "${id}" did not answer within 400 ms$`));
      expect(ms).toBeGreaterThanOrEqual(390);
      expect(ms).toBeLessThan(400 + SLACK_MS);
    },
  );

  it('a provider that sends headers and then stalls the body is a 504 at the deadline', async () => {
    fake.setBehaviour('stallBody');
    const { value: error, ms } = await timed(() => domainRejection(registryFor(fake).generate('mistral', call('mistral'), within(400))));
    expect(error.code).toBe('provider_timeout');
    expect(error.message).toMatch(/^provider "mistral" did not answer within \d+ ms$/);
    expect(ms).toBeLessThan(400 + SLACK_MS);
  });

  it('the provider request is closed when the deadline passes', async () => {
    fake.setBehaviour('hang');
    await rejection(registryFor(fake).generate('openai', call('openai'), within(200)));
    await fake.waitForClientClose(fake.requests[0] as RecordedRequest);
  });

  it('a slow provider that answers before the deadline succeeds', async () => {
    fake.setBehaviour({ mode: 'slow', delayMs: 200 });
    const answer = await registryFor(fake).generate('xai', call('xai'), within(2_000));
    expect(answer.durationMs).toBeGreaterThanOrEqual(195);
  });

  it('a deadline already past fails without calling the provider', async () => {
    const error = await domainRejection(registryFor(fake).generate('openai', call('openai'), { deadline: Date.now() - 1 }));
    expect(error.code).toBe('provider_timeout');
    expect(fake.requestCount).toBe(0);
  });
});

describe('retries', () => {
  it('retries a 500 and reports the second attempt', async () => {
    fake.enqueue('serverError');
    const answer = await registryFor(fake).generate('anthropic', call('anthropic'), within(10_000));
    expect(answer.attempts).toBe(2);
    expect(fake.requestCount).toBe(2);
  });

  it.each(['overloaded', 'reset', 'rateLimit'] as const)('retries %s', async (mode) => {
    fake.enqueue({ mode, retryAfterSeconds: 0 });
    const answer = await registryFor(fake).generate('openai', call('openai'), within(10_000));
    expect(answer.attempts).toBe(2);
  });

  it('waits as long as Retry-After asks when the budget allows', async () => {
    fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 1 });
    const { value: answer, ms } = await timed(() => registryFor(fake).generate('groq', call('groq'), within(5_000)));
    expect(answer.attempts).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(990);
  });

  it('honours retry-after-ms', async () => {
    fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 0.3, retryAfterHeader: 'ms' });
    const { value: answer, ms } = await timed(() => registryFor(fake).generate('openai', call('openai'), within(5_000)));
    expect(answer.attempts).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(290);
  });

  it('answers a 429 at once when its Retry-After ends past the deadline', async () => {
    fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 7 });
    const { value: error, ms } = await timed(() => domainRejection(registryFor(fake).generate('anthropic', call('anthropic'), within(3_000))));
    expect(error).toMatchObject({ code: 'provider_rate_limited', status: 429, headers: { 'retry-after': '7' } });
    expect(ms).toBeLessThan(500);
    expect(fake.requestCount).toBe(1);
  });

  it('reads Google’s RetryInfo the same way', async () => {
    fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 7 });
    const { value: error, ms } = await timed(() => domainRejection(registryFor(fake).generate('google', call('google'), within(3_000))));
    expect(error.headers['retry-after']).toBe('7');
    expect(ms).toBeLessThan(500);
  });

  it.each(['rejectKey', 'badRequest', 'garbage', 'malformed'] as const)('never retries %s', async (mode) => {
    fake.setBehaviour(mode);
    await domainRejection(registryFor(fake).generate('deepseek', call('deepseek'), within(10_000)));
    expect(fake.requestCount).toBe(1);
  });

  it('stops after maxRetries and reports the last failure', async () => {
    fake.setBehaviour('serverError');
    const error = await domainRejection(registryFor(fake, { maxRetries: 1 }).generate('openai', call('openai'), within(10_000)));
    expect(error.code).toBe('provider_failed');
    expect(fake.requestCount).toBe(2);
  });

  it('does not start a backoff that would end past the deadline', async () => {
    fake.setBehaviour('serverError');
    const { value: error, ms } = await timed(() => domainRejection(registryFor(fake).generate('openai', call('openai'), within(200))));
    expect(error.code).toBe('provider_failed');
    expect(ms).toBeLessThan(200);
    expect(fake.requestCount).toBe(1);
  });
});

describe('client abort', () => {
  it('aborts the provider request when the caller signal aborts', async () => {
    fake.setBehaviour('hang');
    const controller = new AbortController();
    const pending = registryFor(fake).generate('anthropic', call('anthropic', { signal: controller.signal }), within(10_000));
    const [request] = await fake.waitForRequests(1);
    controller.abort();
    const error = await rejection(pending);
    expect(error).toBeInstanceOf(ClientAbortedError);
    await fake.waitForClientClose(request as RecordedRequest);
  });

  it('stops waiting between attempts when the caller goes away', async () => {
    fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 5 });
    const controller = new AbortController();
    const pending = registryFor(fake).generate('openai', call('openai', { signal: controller.signal }), within(20_000));
    await fake.waitForRequests(1);
    setTimeout(() => controller.abort(), 50);
    const { value: error, ms } = await timed(() => rejection(pending));
    expect(error).toBeInstanceOf(ClientAbortedError);
    expect(ms).toBeLessThan(1_000);
    expect(fake.requestCount).toBe(1);
  });

  it('does not call the provider for a caller that is already gone', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(registryFor(fake).generate('openai', call('openai', { signal: controller.signal }), within(5_000)));
    expect(error).toBeInstanceOf(ClientAbortedError);
    expect(fake.requestCount).toBe(0);
  });
});
