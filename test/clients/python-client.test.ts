/**
 * The Python client (clients/python) against the real server on loopback, on each storage
 * engine: its unittest suite runs with the server's URL and key in its environment, so the tests
 * that need a server run too (without them only the scripted-server unit tests would). Providers
 * are the fake provider server, picked per request by model (`fake-<mode>`, e.g. fake-overloaded).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { pythonAvailable, runPython } from '../helpers/python.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Every test of clients/python/tests; a test that vanished (or was never collected) fails the count. */
const EXPECTED_TESTS = 92;

describe.skipIf(!pythonAvailable).each(storageTargets)('the Python client on $engine', (target) => {
  let server: TestServer;
  let fake: FakeProviderServer;

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({
      target,
      env: {
        LOG_LEVEL: 'warn',
        // Feedback on an unknown request waits one flush interval (another instance may hold the answer) before its 404.
        USAGE_FLUSH_MS: '50',
        PROVIDER_TIMEOUT_MS: '3000',
        PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'),
        PROVIDER_BASE_URL_ANTHROPIC: fake.baseUrl('anthropic'),
        // The webhook tests' receiver listens on loopback.
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      },
    });
  });

  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('passes its unittest suite, every test run', async () => {
    const result = await runPython(['-X', 'dev', '-W', 'error', '-m', 'unittest', 'discover', '-s', 'clients/python/tests', '-v'], {
      env: {
        PERSONA_REFINE_TEST_URL: server.url,
        PERSONA_REFINE_TEST_API_KEY: server.key,
        PERSONA_REFINE_TEST_FAKE_PROVIDER_URL: fake.url,
      },
      timeoutMs: 170_000,
    });
    const ran = /^Ran (\d+) tests? in /m.exec(result.output)?.[1];
    expect({ code: result.code, ran: Number(ran), skipped: /skipped=\d+/.test(result.output) }, result.output).toEqual({
      code: 0,
      ran: EXPECTED_TESTS,
      skipped: false,
    });
  }, 180_000);
});
