import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../src/providers/index.js';
import { GOOGLE_KEY_PREFIX } from '../../src/providers/secret-scrubber.js';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import {
  OPERATOR_ID, allIds, call, domainRejection, keyFor, registryFor, within,
} from './provider-test-kit.js';
import { secretFragmentsIn } from '../helpers/secrets.js';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** One attempt only, so each failure surfaces as the provider sent it. */
const failing = (id: string, model?: string) =>
  domainRejection(registryFor(fake, { maxRetries: 0 }).generate(id, call(id, { model }), within(5_000)));

/** Google and xAI answer a bad key with 400; the others with 401. */
const keyRejectionStatus = (id: string) => (id === 'google' || id === 'xai' ? 400 : 401);

describe.each(allIds)('%s failures', (id) => {
  it('a rejected key is a 400 that names the provider and its status, and nothing else', async () => {
    fake.setBehaviour('rejectKey');
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_rejected_request', status: 400, source: 'provider' });
    expect(error.message).toBe(`provider "${id}" rejected providerApiKey (HTTP ${keyRejectionStatus(id)})`);
  });

  it('a rejected request is a 400 carrying the provider message', async () => {
    fake.setBehaviour('badRequest');
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_rejected_request', status: 400, source: 'provider' });
    expect(error.message).toMatch(new RegExp(`^provider "${id}" rejected the request \\(HTTP 400\\): \\S`));
  });

  it('a provider rate limit is a 429 that keeps the wait the provider asked for', async () => {
    fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 12 });
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_rate_limited', status: 429, headers: { 'retry-after': '12' } });
    expect(error.message).toMatch(new RegExp(`^provider "${id}" is rate limiting requests \\(HTTP 429\\): \\S`));
  });

  it('a 5xx is a 502 naming the status', async () => {
    fake.setBehaviour('serverError');
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_failed', status: 502, source: 'provider' });
    expect(error.message).toMatch(new RegExp(`^provider "${id}" failed \\(HTTP 500\\): \\S`));
  });

  it('overload (Anthropic 529, others 503) is a 502', async () => {
    fake.setBehaviour('overloaded');
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_failed', status: 502 });
    expect(error.message).toMatch(
      id === 'anthropic' ? /^provider "anthropic" is overloaded \(HTTP 529\): Overloaded$/ : /\(HTTP 503\): \S/,
    );
  });

  it('a 200 whose body is not JSON is a 502', async () => {
    fake.setBehaviour('garbage');
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_failed', status: 502 });
    expect(error.message).toBe(`provider "${id}" answered with a body that is not JSON (HTTP 200)`);
  });

  it('a 200 with JSON of the wrong shape is a 502', async () => {
    fake.setBehaviour('malformed');
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_failed', status: 502 });
    expect(error.message).toBe(`provider "${id}" answered with JSON of an unexpected shape (HTTP 200)`);
  });

  it('a 200 without any text is a 502', async () => {
    fake.setBehaviour({ mode: 'ok', reply: '' });
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_failed', status: 502 });
    expect(error.message).toBe(`provider "${id}" answered without any text`);
  });

  it('a reset connection is a 502', async () => {
    fake.setBehaviour('reset');
    const error = await failing(id);
    expect(error).toMatchObject({ code: 'provider_failed', status: 502 });
    expect(error.message).toMatch(new RegExp(`^provider "${id}" could not be reached \\(`));
  });

  it('the failure can be chosen per request through the model name', async () => {
    const error = await failing(id, 'fake-serverError');
    expect(error.code).toBe('provider_failed');
  });

  it.each(['rejectKey', 'badRequest', 'rateLimit', 'serverError', 'overloaded'] as const)(
    'no message carries the key or a fragment of it (%s)',
    async (mode) => {
      const key = keyFor(id);
      fake.setBehaviour({ mode, message: `Key ${key} (${key.slice(0, 9)}...${key.slice(-7)}) is not valid here` });
      const error = await failing(id);
      expect(secretFragmentsIn(error.message, key)).toEqual([]);
      expect(secretFragmentsIn(JSON.stringify(error.headers), key)).toEqual([]);
    },
  );
});

describe('the 8 MiB cap on a provider answer', () => {
  const MiB = 1024 * 1024;

  it.each(allIds)('%s: an answer over 8 MiB is a 502 saying so, not retried', async (id) => {
    fake.setBehaviour({ mode: 'ok', reply: 'x'.repeat(8 * MiB + 1024) });
    const error = await domainRejection(registryFor(fake).generate(id, call(id), within(20_000)));
    expect(error).toMatchObject({ code: 'provider_failed', status: 502, source: 'provider' });
    expect(error.message).toBe(`provider "${id}" answered with more than 8 MiB`);
    expect(fake.requestCount).toBe(1);
  });

  it('an answer just under 8 MiB is read whole', async () => {
    const reply = 'y'.repeat(8 * MiB - 4096);
    fake.setBehaviour({ mode: 'ok', reply });
    const { text } = await registryFor(fake).generate('openai', call('openai'), within(20_000));
    expect(text.length).toBe(reply.length);
  });
});

describe('messages', () => {
  it('scrubs the masked key OpenAI echoes and keeps the rest of its message', async () => {
    const key = keyFor('openai');
    fake.setBehaviour({ mode: 'badRequest', message: `Incorrect API key provided: ${key.slice(0, 10)}****${key.slice(-4)}. See the docs.` });
    const error = await failing('openai');
    expect(error.message).toBe('provider "openai" rejected the request (HTTP 400): Incorrect API key provided: [redacted]. See the docs.');
  });

  it('scrubs fragments of a key that does not look like one', async () => {
    const key = keyFor('mistral');
    fake.setBehaviour({ mode: 'badRequest', message: `Unknown key ...${key.slice(3, 12)}... for this workspace` });
    const error = await failing('mistral');
    expect(error.message).toBe('provider "mistral" rejected the request (HTTP 400): Unknown key ...[redacted]... for this workspace');
  });

  it('masks key-looking tokens even when they are not the caller key', async () => {
    fake.setBehaviour({ mode: 'badRequest', message: `keys sk-ant-api03-ZZZZ9999 and ${GOOGLE_KEY_PREFIX}FAKEQQQQ1111 and gsk_PPPP and xai-RRRR are not yours` });
    const error = await failing('anthropic');
    expect(error.message).toMatch(/: keys \[redacted\] and \[redacted\] and \[redacted\] and \[redacted\] are not yours$/);
  });

  it('truncates long provider messages', async () => {
    fake.setBehaviour({ mode: 'serverError', message: 'x'.repeat(5_000) });
    const error = await failing('mistral');
    expect(error.message.length).toBeLessThan(360);
    expect(error.message.endsWith('…')).toBe(true);
  });

  it('says a connection was refused without naming the address', async () => {
    const closed = await startFakeProviderServer();
    const baseUrl = closed.baseUrl(OPERATOR_ID);
    await closed.close();
    const registry = createProviderRegistry({ baseUrls: { [OPERATOR_ID]: baseUrl }, models: { [OPERATOR_ID]: 'm' } }, { maxRetries: 0 });
    const error = await domainRejection(registry.generate(OPERATOR_ID, call(OPERATOR_ID), within(5_000)));
    expect(error.message).toBe(`provider "${OPERATOR_ID}" could not be reached (connection refused)`);
  });
});
