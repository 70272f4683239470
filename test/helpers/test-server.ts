/**
 * The real app on a real loopback port, built exactly as src/server.ts builds
 * it, with its log lines captured so tests can assert what was (not) logged.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { ReviewRecorder } from '../../src/quality/review-recorder.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import type { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import type { Resolve } from '../../src/webhooks/webhook-sender.js';
import { checkResponseBody, ResponseBodyCheck } from './response-bodies.js';
import { sqliteTarget, type StorageTarget } from './storage-targets.js';

// Distinctive throughout, so a test can look for any 6-character fragment of it.
export const TEST_KEY = 'prk_test_Vq8Lw3Rn6Tz1Hk5Mb9Xc2Jd7Fs4Gy0PaEu';

/** Tests read bodies of known shape; `any` keeps assertions readable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface TestServer {
  url: string;
  key: string;
  databaseUrl: string;
  app: FastifyInstance;
  storage: Storage;
  config: Config;
  /** The review queue's writer: `sweep()` deletes what is due by the server's clock. */
  reviews: ReviewRecorder;
  /** The webhook dispatcher: `drain()` sends what is due by the server's clock and waits for it. */
  webhooks: WebhookDispatcher;
  logs: string[];
  /**
   * Authenticated fetch against the server with JSON defaults. A 2xx JSON body is checked
   * against the OpenAPI document's response schema for its route first (test/helpers/response-bodies.ts).
   */
  request(path: string, init?: RequestInit & { json?: unknown; key?: string | null }): Promise<TestResponse>;
  createAccount(name: string): Promise<string>;
  close(): Promise<void>;
}

/** The served contract; a server shedding load (the load-shedding tests) may answer 503 first, so asked until it answers. */
async function openApiDocument(url: string): Promise<object> {
  for (const started = Date.now(); ; ) {
    const res = await fetch(`${url}/v1/openapi.json`);
    if (res.ok) return (await res.json()) as object;
    await res.arrayBuffer();
    if (Date.now() - started > 10_000) throw new Error(`GET /v1/openapi.json answered ${res.status} for 10 s`);
    // sleeps because a shedding server is asked again after a breath, not in a tight loop (a poll, bounded above)
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startTestServer(
  options: {
    target?: StorageTarget;
    env?: Record<string, string>;
    redis?: Redis;
    /** Another instance on the same database, as behind a load balancer. */
    shareDatabaseWith?: TestServer;
    /** Start-up work between building the app and listening (a slow start, simulated; a test-only route). */
    beforeListen?: (app: FastifyInstance) => void;
    /** The time keys are judged by (test/helpers/stepped-clock.ts moves it past a cache or an expiry). */
    clock?: Clock;
    /** Stands in for DNS when webhook hosts are resolved (a name that rebinds). */
    resolve?: Resolve;
  } = {},
): Promise<TestServer> {
  const database = options.shareDatabaseWith
    ? { url: options.shareDatabaseWith.databaseUrl, remove: async () => {} }
    : await (options.target ?? sqliteTarget).create();
  // In-process, the event loop is shared with CPU-heavy test code (fast-check, the OpenAPI
  // validator): load shedding would measure the tests, so only the test that asks for it gets it.
  const config = loadConfig({
    LOG_LEVEL: 'info',
    BOOTSTRAP_API_KEY: TEST_KEY,
    DATABASE_URL: database.url,
    LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
    ...options.env,
  });
  const storage = await openStorage(config.database);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const { app, accounts, reviews, webhooks } = await buildApp({ config, storage, logStream, redis: options.redis, clock: options.clock, resolve: options.resolve });
  await accounts.bootstrap(config.bootstrapApiKey);
  options.beforeListen?.(app);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  let bodies: Promise<ResponseBodyCheck> | undefined;
  const responseBodies = () => (bodies ??= openApiDocument(url).then((document) => new ResponseBodyCheck(document)));

  return {
    url,
    key: TEST_KEY,
    databaseUrl: database.url,
    app,
    storage,
    config,
    reviews,
    webhooks,
    logs,
    async request(path, init = {}) {
      const { json, key = TEST_KEY, headers, ...rest } = init;
      const merged = new Headers(headers);
      if (key !== null && !merged.has('authorization')) merged.set('authorization', `Bearer ${key}`);
      if (json !== undefined && !merged.has('content-type')) merged.set('content-type', 'application/json');
      const response = await fetch(url + path, { ...rest, headers: merged, body: json === undefined ? rest.body : JSON.stringify(json) });
      await checkResponseBody(responseBodies, rest.method ?? 'GET', path, response);
      return response;
    },
    async createAccount(name) {
      return (await accounts.createAccount(name)).key;
    },
    async close() {
      await app.close();
      await storage.close();
      await database.remove();
    },
  };
}
