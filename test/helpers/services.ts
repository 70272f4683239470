/**
 * Real PostgreSQL and Redis for tests, when reachable. Skips are loud; under
 * REQUIRE_SERVICES=1 (CI) a missing service fails the run instead.
 */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import pg from 'pg';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_TEST_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const required = process.env.REQUIRE_SERVICES === '1';

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 1000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

async function available(name: string, url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const up = await reachable(hostname, Number(port || defaultPort));
  if (!up && required) throw new Error(`REQUIRE_SERVICES=1 but ${name} is not reachable at ${hostname}:${port}`);
  if (!up) process.stderr.write(`\n*** SKIPPING ${name} tests: ${name} is not reachable at ${hostname}:${port} ***\n\n`);
  return up;
}

export const postgresAvailable = await available('PostgreSQL', POSTGRES_ADMIN_URL, 5432);
export const redisAvailable = await available('Redis', REDIS_TEST_URL, 6379);

/** A brand-new database for one test file; dropped by the returned cleanup. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `pr_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
