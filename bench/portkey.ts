/**
 * The peer the service is compared to: the Portkey AI gateway (`@portkey-ai/gateway`), run
 * under Node against the same fake provider. It is installed for the benchmark only, into
 * bench/.portkey (git-ignored), never as a dependency of the service; the version is pinned
 * so runs stay comparable. It reaches the fake through its custom-host header, which trusts
 * 127.0.0.1 by default.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR, ROOT, type Proc, freePort, track, waitFor200 } from './processes.js';

export const PORTKEY_VERSION = '1.15.2';
const PREFIX = join(ROOT, 'bench', '.portkey');
const ENTRY = join(PREFIX, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');

/** Installs the gateway once (npm, ~10 s); the reason when it cannot (offline, registry down). */
export function ensurePortkey(): { entry: string } | { missing: string } {
  if (existsSync(ENTRY)) return { entry: ENTRY };
  mkdirSync(PREFIX, { recursive: true });
  try {
    process.stderr.write(`bench: installing @portkey-ai/gateway@${PORTKEY_VERSION} into bench/.portkey (benchmark only)…\n`);
    // --ignore-scripts: its postinstall (patch-package) only matters for its own development.
    execFileSync('npm', ['install', '--prefix', PREFIX, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', `@portkey-ai/gateway@${PORTKEY_VERSION}`], {
      cwd: PREFIX,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 180_000,
    });
  } catch (error) {
    return { missing: `npm could not install @portkey-ai/gateway@${PORTKEY_VERSION}: ${String((error as Error).message).split('\n')[0]}` };
  }
  return existsSync(ENTRY) ? { entry: ENTRY } : { missing: `@portkey-ai/gateway@${PORTKEY_VERSION} installed without build/start-server.js` };
}

/** `node start-server.js --headless` on a free port, its output to bench/results/logs/portkey.log. */
export async function startPortkey(entry: string): Promise<Proc> {
  const port = await freePort();
  mkdirSync(join(RESULTS_DIR, 'logs'), { recursive: true });
  const log = openSync(join(RESULTS_DIR, 'logs', 'portkey.log'), 'w');
  const child = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], {
    cwd: PREFIX,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const proc: Proc = { child, pid: child.pid!, url: `http://127.0.0.1:${port}`, stop: track(child) };
  try {
    await waitFor200(`${proc.url}/`, child, 20_000);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return proc;
}

/** The headers that make Portkey call the fake's OpenAI API with the caller's key. */
export const portkeyHeaders = (openaiBaseUrl: string, providerKey: string): Record<string, string> => ({
  'content-type': 'application/json',
  authorization: `Bearer ${providerKey}`,
  'x-portkey-provider': 'openai',
  'x-portkey-custom-host': openaiBaseUrl,
});
