/** The built admin CLI as a child process, as an operator would run it. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ENTRY = new URL('../../dist/cli/main.js', import.meta.url).pathname;

export async function cli(databaseUrl: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [ENTRY, ...args], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl } });
  return stdout;
}

/** Creates an account; returns its first key (the last stdout line) and the key's id. */
export async function cliCreateAccount(databaseUrl: string, name: string): Promise<{ key: string; keyId: string }> {
  const out = (await cli(databaseUrl, 'accounts', 'create', name)).trim().split('\n');
  return { key: out.at(-1)!, keyId: /\b(key_[0-9a-f-]+)/.exec(out.join('\n'))![1]! };
}
