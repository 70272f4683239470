/** Issue 24: the admin CLI's help prints its usage (no "unknown command") and says which CLI it is. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

describe('npm run cli -- --help', () => {
  it.each(['--help', '-h', 'help'])('%s prints the usage on stdout, exit 0, and points users to the SDK CLI', async (flag) => {
    const { stdout, stderr } = await run(process.execPath, [join(root, 'dist/cli/main.js'), flag], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'sqlite::memory:' } });
    expect(stderr).toBe('');
    expect(stdout).not.toContain('unknown command');
    expect(stdout).toMatch(/^persona-refine admin CLI: for the operator of a persona-refine server/);
    expect(stdout).toContain('npx persona-refine --help');
    expect(stdout).toContain('usage: npm run cli -- <command>');
  });
});
