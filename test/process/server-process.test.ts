import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServerExpectingFailure, startServerProcess } from '../helpers/server-process.js';

const ssAvailable = (() => {
  try {
    execFileSync('ss', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    // Only ss reads a listening socket's accept queue (/proc/net/tcp shows its backlog in use, not its size).
    if (process.env.REQUIRE_SERVICES === '1') throw new Error('REQUIRE_SERVICES=1 but `ss` (iproute2) is not installed');
    process.stderr.write('\n*** SKIPPING the accept-queue test: `ss` (iproute2) is not installed ***\n\n');
    return false;
  }
})();
const dir = mkdtempSync(join(tmpdir(), 'persona-refine-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the server process', () => {
  it('prints a generated key once on first start, never again, and the key works', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'bootstrap.sqlite')}` };
    const first = await startServerProcess(env);
    const key = /\b(prk_[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    const res = await fetch(`${first.url}/v1/personas`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    // The key is on stdout once, in the banner, and in no log line.
    expect(first.output().split(key!).length - 1).toBe(1);
    for (const line of first.output().split('\n').filter((l) => l.startsWith('{'))) expect(line).not.toContain(key);
    expect(await first.stop()).toBe(0);

    const second = await startServerProcess(env);
    expect(second.output()).not.toContain('prk_');
    expect((await fetch(`${second.url}/v1/personas`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await second.stop();
  });

  it('keeps personas and keys across a restart on the same SQLite file, and never stores the key', async () => {
    const bootstrapKey = 'prk_restart_test_key_0123456789abcdefghijklmn';
    const env = { DATABASE_URL: `sqlite:${join(dir, 'restart.sqlite')}`, BOOTSTRAP_API_KEY: bootstrapKey };
    const auth = { authorization: `Bearer ${bootstrapKey}`, 'content-type': 'application/json' };
    const first = await startServerProcess(env);
    const body = JSON.stringify({ name: 'Durable', attributes: { tone: 'steady' } });
    const created = (await (await fetch(`${first.url}/v1/personas`, { method: 'POST', headers: auth, body })).json()) as { id: string };
    await first.stop();

    const second = await startServerProcess(env);
    const res = await fetch(`${second.url}/v1/personas/${created.id}`, { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: created.id, name: 'Durable', attributes: { tone: 'steady' } });
    await second.stop();
    expect(second.output()).not.toContain(bootstrapKey);
    for (const file of readdirSync(dir).filter((f) => f.startsWith('restart.sqlite'))) {
      expect(readFileSync(join(dir, file)).includes(bootstrapKey)).toBe(false);
    }
  });

  it.skipIf(!ssAvailable)('listens with an accept queue for a burst of a thousand new connections (not Node\'s 511)', async () => {
    const server = await startServerProcess({ DATABASE_URL: `sqlite:${join(dir, 'backlog.sqlite')}` });
    try {
      const port = new URL(server.url).port;
      // For a listening socket, ss reports the accept queue's size as Send-Q.
      const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
      const acceptQueue = Number(line.split(/\s+/)[2]);
      const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
      expect(acceptQueue).toBe(Math.min(4096, somaxconn));
      expect(acceptQueue).toBeGreaterThan(511);
    } finally {
      await server.stop();
    }
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    [{ BOOTSTRAP_API_KEY: 'short' }, 'BOOTSTRAP_API_KEY'],
    [{ PROVIDER_TIMEOUT_MS: '-5' }, 'PROVIDER_TIMEOUT_MS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ PROVIDER_BASE_URL_OPENAI: 'not a url' }, 'PROVIDER_BASE_URL_OPENAI'],
    [{ PROVIDER_BASE_URL_OLLAMA: 'http://127.0.0.1:11434/v1' }, 'PROVIDER_MODEL_OLLAMA'],
  ])('refuses bad configuration %o with one line naming %s', async (env, variable) => {
    const { code, output } = await runServerExpectingFailure({ DATABASE_URL: `sqlite:${join(dir, 'cfg.sqlite')}`, ...env });
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).toContain(variable);
    expect(output).not.toContain('short');
  });
});
