/**
 * The SDK installs as sdk/README.md says: its Install commands run as written (the README's
 * placeholder paths pointed at this checkout, an empty folder for the project and one for the
 * tarball), then its quick start, pasted into that folder, runs against a fresh server and
 * prints what the README shows; the TypeScript variant type-checks against what was installed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { section } from './readme-shell.js';

const run = promisify(execFile);
const CHECKOUT = resolve('.');
const README = await readFile('sdk/README.md', 'utf8');

/** The fenced blocks of one language in a section, in order. */
function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

describe('the SDK, installed as sdk/README.md says', () => {
  let server: TestServer;
  let work: string;
  let project: string;
  let packages: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' } });
    work = await mkdtemp(join(tmpdir(), 'sdk-install-'));
    project = join(work, 'my-app');
    packages = join(work, 'packages');
    await run('mkdir', ['-p', project, packages]);
  });

  afterAll(async () => {
    await server?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs from a packed tarball and runs the quick start, offline', async () => {
    const install = blocks(section(README, 'Install').text, 'sh');
    expect(install).toHaveLength(1);
    const script = install[0]!
      .replaceAll('/path/to/persona-refine', CHECKOUT)
      .replaceAll('/path/to/packages', packages)
      .replaceAll('/path/to/my-app', project);
    expect(script).not.toContain('/path/to/');
    // npm must reach no registry: the tarball holds the built SDK and the SDK has no dependencies.
    const env = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    await run('bash', ['-euo', 'pipefail', '-c', script], { env, timeout: 120_000 });

    const quick = section(README, 'Quick start').text;
    const [js] = blocks(quick, 'js');
    const [ts] = blocks(quick, 'ts');
    const [command] = blocks(quick, 'sh');
    const [shown] = blocks(quick, 'text');
    await writeFile(join(project, 'quick.mjs'), js!);
    expect(command!.trim()).toBe('PERSONA_REFINE_API_KEY=prk_paste_your_key_here node quick.mjs');
    const { stdout } = await run(process.execPath, ['quick.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url },
    });
    expect(stdout).toBe(shown);

    // The TypeScript variant compiles against the installed package's own types.
    await writeFile(join(project, 'quick.mts'), ts!);
    const tsc = join(CHECKOUT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', join(CHECKOUT, 'node_modules/@types'), 'quick.mts'], { cwd: project });
  }, 180_000);
});
