/**
 * The first `npm start` after `npm install` builds what it serves, fast: the server bundled by
 * esbuild and the studio by Vite, never a type-check (that is `npm test`'s). A later start builds
 * only what changed. Run in a copy of the sources, as a fresh clone would be.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordLoadedModules } from '../helpers/server-process.js';

const root = new URL('../..', import.meta.url).pathname;
const clone = mkdtempSync(join(tmpdir(), 'persona-refine-clone-'));
const modules = join(clone, 'loaded-modules.txt');
const OUTPUTS = ['dist/server.js', 'dist/cli/main.js', 'studio/dist/index.html'];

/** `node scripts/build-if-needed.mjs` (npm start's prestart) in the clone, recording every module any of its processes loads. */
async function buildIfNeeded(): Promise<{ code: number | null; output: string }> {
  const { nodeArgs, env } = recordLoadedModules(modules);
  const child = spawn(process.execPath, ['scripts/build-if-needed.mjs'], {
    cwd: clone,
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeArgs.join(' '), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

const mtimes = () => OUTPUTS.map((file) => statSync(join(clone, file)).mtimeMs);

beforeAll(() => {
  for (const path of ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'sdk/src', 'sdk/package.json']) cpSync(join(root, path), join(clone, path), { recursive: true });
  for (const path of ['src', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'tsconfig.node.json']) {
    cpSync(join(root, 'studio', path), join(clone, 'studio', path), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
});
afterAll(() => rmSync(clone, { recursive: true, force: true }));

describe('the first start', () => {
  // esbuild and Vite from nothing, on a machine that may be running other suites.
  it('builds the server and the studio without type-checking, and the build serves both', async () => {
    const { code, output } = await buildIfNeeded();
    expect(code, output).toBe(0);
    expect(output).toContain('building persona-refine…');
    expect(output).toContain('building Persona Studio…');
    const loaded = readFileSync(modules, 'utf8').split('\n');
    expect(loaded.filter((url) => url.includes('/node_modules/typescript/'))).toEqual([]);
    for (const file of OUTPUTS) expect(existsSync(join(clone, file)), file).toBe(true);

    const server = spawn(process.execPath, ['dist/server.js'], {
      cwd: clone,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'sqlite::memory:', LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    server.stdout.on('data', (chunk) => (log += String(chunk)));
    try {
      await expect.poll(() => /Persona Studio at (http:\/\/[^/]+)/.exec(log)?.[1], { timeout: 15_000 }).toBeDefined();
      const base = /Persona Studio at (http:\/\/[^/]+)/.exec(log)![1]!;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const studio = await fetch(`${base}/studio/`);
      expect(studio.status).toBe(200);
      expect(await studio.text()).toContain('<script type="module"');
    } finally {
      server.kill('SIGKILL');
    }
  }, 120_000);

  it('a second start builds nothing; a changed studio source rebuilds the studio alone', async () => {
    const before = mtimes();
    const second = await buildIfNeeded();
    expect(second.code, second.output).toBe(0);
    expect(second.output).toBe('');
    expect(mtimes()).toEqual(before);

    const later = new Date(Date.now() + 5_000);
    utimesSync(join(clone, 'studio', 'index.html'), later, later);
    const third = await buildIfNeeded();
    expect(third.code, third.output).toBe(0);
    expect(third.output).not.toContain('building persona-refine');
    expect(third.output).toContain('building Persona Studio…');
    const after = mtimes();
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(after[2]).toBeGreaterThan(before[2]!);
  }, 120_000);
});
