// `npm run start:cluster`: two instances of the server (or as many as PORTS names) on one
// PostgreSQL and one Redis, without Docker or a process manager: what deploy/compose.yaml runs,
// on this machine. DATABASE_URL's database is created when missing, as `createdb` would. SIGTERM
// or SIGINT stops every instance gracefully; an instance that dies stops the others.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';

const root = new URL('..', import.meta.url).pathname;
const { DATABASE_URL, REDIS_URL } = process.env;
const ports = (process.env.PORTS ?? '8080,8081').split(',').map((port) => port.trim());

function fail(message) {
  process.stderr.write(`start:cluster: ${message}\n`);
  process.exit(1);
}
if (!DATABASE_URL?.startsWith('postgres')) fail('DATABASE_URL must be a postgres:// URL: the instances share it');
if (!REDIS_URL?.startsWith('redis')) fail('REDIS_URL must be a redis:// URL: the instances share rate limits and caches through it');

async function createDatabaseIfMissing(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  // The maintenance database every PostgreSQL has; CREATE DATABASE cannot run inside the one it makes.
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      process.stderr.write(`start:cluster: created database ${name}\n`);
    }
  } finally {
    await client.end();
  }
}

await createDatabaseIfMissing(DATABASE_URL).catch((error) => fail(`cannot create the database: ${error.message}`));

const instances = ports.map((port) =>
  spawn(process.execPath, ['dist/server.js'], { cwd: root, env: { ...process.env, PORT: port, WORKERS: '1' }, stdio: 'inherit' }),
);
let stopping = false;
let died = false;
const stopAll = (signal) => {
  stopping = true;
  for (const instance of instances) if (instance.exitCode === null && instance.signalCode === null) instance.kill(signal);
};
process.on('SIGTERM', () => stopAll('SIGTERM'));
process.on('SIGINT', () => stopAll('SIGINT'));
for (const instance of instances) {
  instance.once('exit', (code) => {
    if (!stopping) {
      died = true;
      process.stderr.write(`start:cluster: an instance exited (${code}); stopping the others\n`);
    }
    stopAll('SIGTERM');
  });
}
const codes = await Promise.all(instances.map(async (instance) => (await once(instance, 'exit'))[0]));
process.exit(!died && codes.every((code) => code === 0) ? 0 : 1);
