/** Two instances of the service behind one PostgreSQL database and one Redis, with one fake provider, as behind a load balancer. */
import { connectRedis } from '../../src/limits/redis.js';
import { startFakeProviderServer, type FakeProviderServer } from '../fakes/provider-server.js';
import { refineEnv } from './refine-fixture.js';
import { createTestDatabase, REDIS_TEST_URL } from './services.js';
import { postgresTarget } from './storage-targets.js';
import { startTestServer, type TestServer } from './test-server.js';

export interface TwoInstances {
  fake: FakeProviderServer;
  a: TestServer;
  b: TestServer;
  close(): Promise<void>;
}

export async function startTwoInstances(options: { latencyMs?: number; env?: Record<string, string> } = {}): Promise<TwoInstances> {
  const fake = await startFakeProviderServer({ latencyMs: options.latencyMs });
  const redis = await connectRedis(REDIS_TEST_URL);
  const database = await createTestDatabase();
  const env = refineEnv(fake, { ...options.env, DATABASE_URL: database.url });
  const a = await startTestServer({ target: postgresTarget, env, redis });
  const b = await startTestServer({ shareDatabaseWith: a, env, redis });
  return {
    fake, a, b,
    async close() {
      await a.close();
      await b.close();
      redis.disconnect();
      await fake.close();
      await database.drop();
    },
  };
}
