/**
 * Entry point: config → storage → app → listen → graceful shutdown.
 * With WORKERS > 1 this process becomes a supervisor (src/cluster.ts) that
 * prepares storage once and forks workers sharing the port.
 */
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { AccountService, type IssuedKey } from './accounts/account-service.js';
import { buildApp } from './app.js';
import { runSupervisor } from './cluster.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { connectRedis } from './limits/redis.js';
import { flushLogs } from './logging/log-destination.js';
import { closeTransportPools, warmTransport } from './providers/index.js';
import { AccountRepository } from './storage/account-repository.js';
import { openStorage, type Storage } from './storage/database.js';
import { startTracing } from './tracing/start-tracing.js';
import { PACKAGE_VERSION } from './version.js';

const LISTEN_BACKLOG = 4096;

/** Migrations and the first-start account: once, before any request is served. */
async function prepareStorage(config: Config): Promise<{ storage: Storage; issued: IssuedKey | undefined }> {
  const storage = await openStorage(config.database);
  const issued = await new AccountService(new AccountRepository(storage.db)).bootstrap(config.bootstrapApiKey);
  return { storage, issued };
}

/**
 * A port that cannot be had is a configuration problem: the start ends with one line naming the
 * variable that chooses another (Node's `listen EADDRINUSE …` names none).
 */
function listenProblem(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError('PORT', `${config.port} is already in use on ${config.host}: stop what listens there, or choose another port, e.g. PORT=${config.port + 1} npm start`);
  }
  if (code === 'EACCES') return new ConfigError('PORT', `${config.port} may not be opened by this user on ${config.host}: choose a port above 1023`);
  return error;
}

/** The address a person can open: a wildcard listen address is reachable on loopback. */
function baseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** Printed once, to stdout, never logged: the operator's only chance to copy the key. */
function printFirstStart(issued: IssuedKey, base: string): void {
  process.stdout.write(
    `\nCreated account "${issued.accountName}". Its API key (shown only this once):\n\n  ${issued.key}\n\n` +
      `Persona Studio  ${base}/studio/\nAPI docs        ${base}/docs\n\n`,
  );
}

async function serve(config: Config, storage: Storage, issued?: IssuedKey): Promise<void> {
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const tracer = await startTracing(config.tracing, PACKAGE_VERSION);
  const { app } = await buildApp({ config, storage, redis, tracer });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.warn('shutdown grace period over; exiting with requests still open');
      process.exit(1);
    }, config.shutdownGraceMs);
    timer.unref();
    let code = 0;
    try {
      await app.close();
      await tracer.shutdown();
      await closeTransportPools();
      await storage.close();
      redis?.disconnect();
    } catch (error) {
      app.log.error({ err: error }, 'shutdown did not complete cleanly');
      code = 1;
    }
    process.exit(code);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Node's default accept queue (511) overflows when a thousand clients connect in the same
  // second (the kernel then resets them before any code of ours runs); the kernel caps this
  // at net.core.somaxconn.
  await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }).catch((error: unknown) => {
    throw listenProblem(error, config);
  });
  const base = baseUrl(config.host, (app.server.address() as AddressInfo).port);
  // Log lines are written in batches: the start-up lines go out now, before and after the banner.
  flushLogs();
  if (issued) printFirstStart(issued, base);
  app.log.info(`Persona Studio at ${base}/studio/, API docs at ${base}/docs`);
  flushLogs();
  warmTransport();
}

async function main(): Promise<void> {
  const config = loadConfig(process.env, availableParallelism(), process.stdout.isTTY === true);
  if (cluster.isWorker) return serve(config, await openStorage(config.database));
  const { storage, issued } = await prepareStorage(config);
  if (config.workers === 1) return serve(config, storage, issued);
  await storage.close();
  if (issued) printFirstStart(issued, baseUrl(config.host, config.port));
  await runSupervisor(config.workers, config.shutdownGraceMs, config.logFormat);
}

main().catch((error: unknown) => {
  // Bad configuration: one clear line naming the variable, no stack trace.
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`persona-refine failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
