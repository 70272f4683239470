import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const sdk = join(root, 'sdk');

describe('the persona-refine binary in a clone', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'persona-refine-bin-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is linked into node_modules/.bin by npm install, pointing at a file that is in the repository', () => {
    const link = join(root, 'node_modules', '.bin', 'persona-refine');
    expect(readlinkSync(link)).toBe('../@persona-refine/sdk/bin/persona-refine.js');
    expect(existsSync(join(sdk, 'bin', 'persona-refine.js'))).toBe(true);
  });

  it('runs through npx from the repository root and prints its usage', async () => {
    const { stdout } = await run('npx', ['--no-install', 'persona-refine', '--help'], { cwd: root, env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } });
    expect(stdout).toMatch(/^persona-refine \d+\.\d+\.\d+: the persona-refine SDK's command line[\s\S]*\nUsage: persona-refine <command>/);
    expect(stdout).toContain('personas export');
  });

  it('npx persona-refine --version prints the SDK package version', async () => {
    const { stdout } = await run('npx', ['--no-install', 'persona-refine', '--version'], { cwd: root, env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } });
    const manifest = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as { version: string };
    expect(stdout).toBe(`${manifest.version}\n`);
  });

  it('compiles the CLI on first use when dist/ is missing, then runs it without rebuilding', async () => {
    // A copy of the SDK as a clone has it before any build: sources, no dist/.
    const copy = join(scratch, 'sdk');
    for (const entry of ['bin', 'src', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(sdk, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
    const bin = join(copy, 'bin', 'persona-refine.js');

    const first = await run(process.execPath, [bin, '--help']);
    expect(first.stderr).toContain('building the persona-refine CLI');
    expect(first.stdout).toMatch(/^persona-refine \d+\.\d+\.\d+: the persona-refine SDK's command line[\s\S]*\nUsage: persona-refine <command>/);
    expect(existsSync(join(copy, 'dist', 'cli', 'main.js'))).toBe(true);

    const second = await run(process.execPath, [bin, '--help']);
    expect(second.stderr).toBe('');
    expect(second.stdout).toMatch(/^persona-refine \d+\.\d+\.\d+: the persona-refine SDK's command line[\s\S]*\nUsage: persona-refine <command>/);
  });
});
