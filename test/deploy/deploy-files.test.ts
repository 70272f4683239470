/**
 * No container engine runs here, so the Dockerfile and compose file are
 * checked by what can be checked without one: the start command is the one
 * `npm start` runs, every environment variable they set is one config.ts
 * reads, and that configuration actually loads.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const dockerfile = read('Dockerfile');
const compose = parse(read('deploy/compose.yaml')) as { services: Record<string, { environment?: Record<string, string>; healthcheck?: { test: string[] } }> };
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

/** Every variable name src/config.ts reads. */
function configVariables(): { names: Set<string>; prefixes: string[] } {
  const source = read('src/config.ts');
  const names = new Set([...source.matchAll(/env(?:\.|, ')([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!));
  return { names, prefixes: ['PROVIDER_BASE_URL_', 'PROVIDER_MODEL_'] };
}

function dockerEnv(): Record<string, string> {
  const block = /ENV ((?:[A-Z_]+=\S+(?:\s*\\\n\s*)?)+)/.exec(dockerfile)![1]!;
  return Object.fromEntries([...block.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

describe('deployment files', () => {
  const { names, prefixes } = configVariables();
  const known = (name: string) => names.has(name) || prefixes.some((p) => name.startsWith(p)) || name === 'NODE_ENV';

  it('config.ts is where the names come from (the parser found the documented ones)', () => {
    for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'BOOTSTRAP_API_KEY', 'PROVIDER_TIMEOUT_MS', 'RATE_LIMIT_PER_MINUTE', 'LOG_LEVEL', 'WORKERS', 'SHUTDOWN_GRACE_MS']) {
      expect(names, name).toContain(name);
    }
  });

  it('the image starts the server exactly as npm start does', () => {
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    // npm's shell execs the command, so a signal to npm reaches the server as it reaches the image's PID 1.
    expect(pkg.scripts.start).toBe(`exec ${cmd.join(' ')}`);
    expect(dockerfile).toContain('RUN node scripts/build-if-needed.mjs');
    expect(pkg.scripts.prestart).toBe('node scripts/build-if-needed.mjs');
  });

  it('every variable the image and the compose file set is one the service reads, and it loads', () => {
    const env = dockerEnv();
    for (const name of Object.keys(env)) expect(known(name), `Dockerfile ENV ${name}`).toBe(true);
    const app = compose.services.app!.environment!;
    for (const name of Object.keys(app)) expect(known(name), `compose app.environment.${name}`).toBe(true);

    const substituted = Object.fromEntries(
      Object.entries({ ...env, ...app }).map(([k, v]) => [k, v.replace(/\$\{POSTGRES_PASSWORD[^}]*\}/g, 'pw').replace(/\$\{BOOTSTRAP_API_KEY[^}]*\}/g, 'k'.repeat(40))]),
    );
    const config = loadConfig(substituted, 2);
    expect(config.database.kind).toBe('postgres');
    expect(config.redisUrl).toBe('redis://redis:6379');
    expect(config.workers).toBe(2);
    expect(loadConfig(env).database).toEqual({ kind: 'sqlite', path: '/data/personas.sqlite' });
  });

  it('probes point at routes the service serves without a key', () => {
    expect(compose.services.app!.healthcheck!.test.join(' ')).toContain('/readyz');
    expect(dockerfile).toContain('/healthz');
    expect(read('deploy/nginx.conf')).toContain(`server app:${compose.services.app!.environment!.PORT}`);
  });
});
