/**
 * WORKERS > 1: this process supervises N workers that share the listening
 * port (node:cluster hands connections round-robin). It serves nothing
 * itself. A worker that dies is replaced, with a growing delay if it keeps
 * dying; SIGTERM is passed on and the supervisor exits when all have.
 */
import cluster, { type Worker } from 'node:cluster';
import type { LogFormat } from './config.js';

export async function runSupervisor(workers: number, shutdownGraceMs: number, logFormat: LogFormat): Promise<void> {
  const pretty = logFormat.kind === 'pretty' ? (await import('./logging/pretty-log.js')).prettyLine : undefined;
  const log = (msg: string, extra: Record<string, unknown> = {}) => {
    const line = JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, role: 'supervisor', ...extra, msg });
    process.stdout.write(pretty ? pretty(line, logFormat.kind === 'pretty' && logFormat.colour) : `${line}\n`);
  };
  let stopping = false;
  let recentDeaths = 0;

  const fork = (): Worker => cluster.fork();
  for (let i = 0; i < workers; i++) fork();
  log(`started ${workers} workers`, { workers });

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    recentDeaths++;
    setTimeout(() => recentDeaths--, 60_000).unref();
    const delay = Math.min(30_000, 100 * 2 ** Math.min(recentDeaths, 8));
    log('worker died; replacing it', { worker: worker.process.pid, code, signal, delayMs: delay });
    setTimeout(() => {
      if (!stopping) fork();
    }, delay);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log('shutting down workers', { signal });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => process.exit(1), shutdownGraceMs + 1_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
