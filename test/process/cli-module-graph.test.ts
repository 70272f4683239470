/** The admin CLI needs the configuration and the database, never the provider machinery. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'modules-')), 'loaded.txt');
  await run(process.execPath, ['--import', join(root, 'test/helpers/record-loaded-modules.mjs'), join(root, 'dist/cli/main.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'sqlite::memory:', LOADED_MODULES_FILE: file },
  });
  return readFileSync(file, 'utf8').trim().split('\n');
}

describe('the admin CLI module graph', () => {
  it('loads the configuration and storage but not the providers, their wire formats or undici', async () => {
    const loaded = await modulesLoadedBy(['keys', 'list']);
    expect(loaded.some((url) => url.endsWith('/dist/config.js'))).toBe(true);
    expect(loaded.some((url) => url.endsWith('/dist/providers/provider-config.js'))).toBe(true);
    expect(loaded.filter((url) => url.includes('/dist/providers/') && !url.endsWith('/provider-config.js'))).toEqual([]);
    expect(loaded.filter((url) => url.includes('/undici/') || url === 'node:undici')).toEqual([]);
  });
});
