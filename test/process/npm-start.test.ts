/**
 * `npm start` under a supervisor (systemd, a container runtime, a process manager): the
 * supervisor signals the process it started, npm, and nothing else. The server must get the
 * signal, finish gracefully and free its port before npm exits.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'persona-refine-npm-start-'));
const orphans: number[] = [];
afterAll(() => {
  // A server the signal did not reach would hold its port for every later test.
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Whether something still listens on the port: a listener of ours gets EADDRINUSE if so. */
async function portTaken(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

describe('npm start under a supervisor', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops the server gracefully and frees the port on %s sent to npm alone', async (signal) => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, `${signal}.sqlite`)}`, LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk) => (output += String(chunk)));
    npm.stderr.on('data', (chunk) => (output += String(chunk)));
    const exited = once(npm, 'exit');

    await expect.poll(() => /Persona Studio at http/.test(output), { timeout: 45_000 }).toBe(true);
    const serverPid = Number(/"pid":(\d+)/.exec(output)?.[1]);
    expect(serverPid).toBeGreaterThan(0);
    orphans.push(serverPid);

    npm.kill(signal);
    await exited;
    expect(await portTaken(port)).toBe(false);
    expect(output).toContain(`"signal":"${signal}"`);
    expect(output).toContain('shutting down: no new connections, finishing in-flight requests');
  }, 60_000);
});
