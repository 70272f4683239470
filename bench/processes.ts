/**
 * Every server the bench measures runs as its own child process, so the load
 * generator (this process) never shares an event loop with what it measures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeBehaviour } from '../test/fakes/provider-server.js';

/** The repo root, found by walking up: this file runs from bench/ (type-check) and bench/dist/bench/ (compiled). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !readFileSync(join(dir, 'package.json'), 'utf8').includes('"name": "persona-refine"')) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('bench: cannot find the persona-refine package root');
    dir = parent;
  }
  return dir;
}

export const ROOT = findRoot();
export const SERVER_ENTRY = join(ROOT, 'dist', 'server.js');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
const LOG_DIR = join(RESULTS_DIR, 'logs');
/** Compiled siblings of this file (bench/dist/bench/*.js). */
const HERE = dirname(fileURLToPath(import.meta.url));
export const BASELINE_ENTRY = join(HERE, 'baseline-server.js');

/** Each running child and how to signal it (and, for a process group, its members). */
const live = new Map<ChildProcess, (signal: NodeJS.Signals) => void>();
// A crashed or interrupted bench must not leave servers holding ports and CPU.
process.on('exit', () => {
  for (const kill of live.values()) kill('SIGKILL');
});

export interface Proc {
  child: ChildProcess;
  pid: number;
  url: string;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/**
 * Throws if a server died during a run — e.g. killed from outside (someone's cleanup on a
 * shared machine) — so its zero or failed figures are reported as an error, not as a result.
 */
export function ensureAlive(...procs: Proc[]): void {
  for (const { child } of procs) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`pid ${child.pid} exited during the run (${child.signalCode ?? `code ${child.exitCode}`}); see bench/results/logs/`);
    }
  }
}

/**
 * A child the runner kills on exit; stop() is SIGTERM, then SIGKILL after 5 s. With `group`
 * (a detached child leading its own process group) the signals go to the whole group.
 */
export function track(child: ChildProcess, group = false): () => Promise<void> {
  const kill = (signal: NodeJS.Signals) => {
    try {
      if (group) process.kill(-child.pid!, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };
  live.set(child, kill);
  child.once('exit', () => live.delete(child));
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `url` answers 200; a connection refused just means "not listening yet". */
export async function waitFor200(url: string, child: ChildProcess, timeoutMs: number, headers: Record<string, string> = {}, everyMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${url} answered`);
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

function logTail(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Extra node flags for every service started from now on (`--cpu-prof` and `--node-flag` runs of the bench). */
const serviceNodeArgs: string[] = [];
export function addServiceNodeFlags(...flags: string[]): void {
  serviceNodeArgs.push(...flags);
}
export const profileServices = (dir: string) => addServiceNodeFlags('--cpu-prof', '--cpu-prof-dir', dir);

export interface ServiceOptions {
  /** Names the log file under bench/results/logs/. */
  name: string;
  databaseUrl: string;
  apiKey: string;
  env?: Record<string, string>;
  /** Start it as users do, with `npm start` (npm and the prestart build check included). */
  viaNpm?: boolean;
}

export interface Launched extends Proc {
  logPath: string;
  /** performance.now() just before spawn(): where cold start is measured from. */
  spawnedAt: number;
}

/**
 * `node dist/server.js` as users run it: rate limiting, metrics and request logging on.
 * Its log goes to a file, never a pipe we would have to drain (pipe backpressure would
 * slow the server down and pollute the figures). The environment is built from scratch
 * so nothing from the caller's shell (LOG_LEVEL, provider keys) leaks into a run.
 * Does not wait for it to listen: cold start measures that wait itself.
 */
export async function launchService(options: ServiceOptions): Promise<Launched> {
  const port = await freePort();
  mkdirSync(LOG_DIR, { recursive: true });
  const logPath = join(LOG_DIR, `${options.name}.log`);
  const log = openSync(logPath, 'w');
  const spawnedAt = performance.now();
  const [command, args] = options.viaNpm ? ['npm', ['start', '--silent']] : [process.execPath, [...serviceNodeArgs, SERVER_ENTRY]];
  const child = spawn(command, args, {
    cwd: ROOT,
    // npm starts the server through a shell: its own process group, so stop() reaches all of it.
    detached: options.viaNpm === true,
    env: {
      PATH: process.env.PATH ?? '',
      ...(options.viaNpm ? { HOME: process.env.HOME ?? ROOT } : {}),
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      BOOTSTRAP_API_KEY: options.apiKey,
      // High enough never to reject during a run, but the limiter still runs on every request.
      RATE_LIMIT_PER_MINUTE: '10000000',
      ...options.env,
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  return { child, pid: child.pid!, url: `http://127.0.0.1:${port}`, stop: track(child, options.viaNpm === true), logPath, spawnedAt };
}

export async function startService(options: ServiceOptions): Promise<Proc> {
  const service = await launchService(options);
  try {
    await waitFor200(`${service.url}/healthz`, service.child, 20_000);
  } catch (error) {
    await service.stop();
    throw new Error(`service "${options.name}" did not start: ${(error as Error).message}\n${logTail(service.logPath)}`);
  }
  return service;
}

/** Starts one of the bench's own entries (fake provider, baseline) and waits for it to report its URL. */
async function startEntry(file: string, args: string[]): Promise<Proc> {
  const child = spawn(process.execPath, [join(HERE, file), ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const stop = track(child);
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error(`${file} exited before it was ready`);
    }),
  ])) as [{ url: string }];
  return { child, pid: child.pid!, url: message.url, stop };
}

/**
 * The fake provider (test/fakes), answering after `latencyMs`. Its url is the fake's root.
 * `replyLength` repeats the behaviour's reply to that many characters (in the fake's process).
 */
export const startFakeProvider = (latencyMs: number, behaviour?: FakeBehaviour, replyLength?: number) =>
  startEntry('fake-provider-process.js', [String(latencyMs), ...(behaviour ? [JSON.stringify(behaviour)] : []), ...(replyLength ? [String(replyLength)] : [])]);

/** The event-loop probe's compiled path, for NODE_OPTIONS=--import. */
export const EVENT_LOOP_PROBE = join(HERE, 'event-loop-probe.js');

/** A bare Fastify "hello world": the ceiling the service's CRUD throughput is compared to. */
export const startBaseline = () => startEntry('baseline-server.js', ['0']);

/** Bare Fastify doing the read's own work (bench/read-baseline-server.ts) on the service's SQLite file. */
export const startReadBaseline = (sqliteFile: string) => {
  mkdirSync(LOG_DIR, { recursive: true });
  return startEntry('read-baseline-server.js', [sqliteFile, join(LOG_DIR, 'read-baseline.log')]);
};

/** A bare Fastify + undici proxy to `providerUrl`: the ceiling refine's throughput and CPU are compared to. */
export const startBareProxy = (providerUrl: string, capturedBodyFile: string) => startEntry('bare-proxy-server.js', [providerUrl, capturedBodyFile]);

/** The same for a chat completion (OpenAI's Chat Completions in and out): the ceiling POST /v1/chat/completions's CPU is compared to. */
export const startBareChatProxy = (providerUrl: string, capturedBodyFile: string) => startEntry('bare-chat-proxy-server.js', [providerUrl, capturedBodyFile]);

/** A webhook receiver on loopback that answers 204 at once and notes what arrived when (bench/webhook-receiver-process.ts). */
export const startWebhookReceiver = () => startEntry('webhook-receiver-process.js', []);

/** `pid` and all its descendants (cluster workers), from /proc. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i]!) ?? []));
  return tree;
}

/**
 * CPU seconds (user + system) the process tree has used so far. CPU per request is the
 * figure a busy shared machine disturbs least: neighbours slow a run down, but they do
 * not make each request cost more cycles. Linux's clock tick is 100 Hz (getconf CLK_TCK).
 */
export function treeCpuSeconds(pid: number, withReaped = false): number {
  let ticks = 0;
  for (const member of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${member}/stat`, 'utf8');
      // After "pid (comm) ": fields 3.. ; utime and stime are fields 14 and 15, and the
      // times of children that already exited and were waited for (cutime, cstime) 16 and 17.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      if (withReaped) ticks += Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

/**
 * CPU seconds used by everything *except* this runner and the children it has reaped:
 * what the neighbours (other people's tests, builds, browsers) took meanwhile. Call it
 * between scenarios, when all of a scenario's children have exited and been reaped.
 */
export function neighbourCpuSeconds(): number {
  const [, ...cpu] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  const busy = cpu.slice(0, 8).reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + value), 0);
  const self = readFileSync('/proc/self/stat', 'utf8');
  // utime, stime, cutime, cstime: fields 14-17 (children's times once they are reaped).
  const own = self.slice(self.lastIndexOf(')') + 2).split(' ').slice(11, 15).map(Number).reduce((a, b) => a + b, 0);
  return (busy - own) / 100;
}

/** Resident set size of the whole process tree, in bytes. */
export function treeRssBytes(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${member}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      // gone
    }
  }
  return total;
}

/** Samples the tree's RSS every `everyMs`; stop() returns the peak seen. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = treeRssBytes(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssBytes(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, treeRssBytes(pid));
    },
  };
}
