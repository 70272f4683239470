/** Entry point: config → storage → app → listen → graceful shutdown. */
import { availableParallelism } from 'node:os';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { connectRedis } from './limits/redis.js';
import { openStorage } from './storage/database.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env, availableParallelism());
  const storage = await openStorage(config.database);
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  const { app, accounts } = await buildApp({ config, storage, redis });

  const issued = await accounts.bootstrap(config.bootstrapApiKey);
  if (issued) {
    // Printed once, to stdout, never logged: the operator's only chance to copy it.
    process.stdout.write(
      `\nCreated account "${issued.accountName}". Its API key (shown only this once):\n\n  ${issued.key}\n\n`,
    );
  }

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
    await app.close();
    await storage.close();
    redis?.disconnect();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
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
