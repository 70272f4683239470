/** Operational probes, outside /v1 and without authentication. */
import type { FastifyPluginAsync } from 'fastify';
import { unavailable } from '../errors.js';
import type { Storage } from '../storage/database.js';

export const healthRoutes: FastifyPluginAsync<{ storage: Storage }> = async (app, { storage }) => {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async () => {
    if (!(await storage.ping())) throw unavailable('storage is not reachable', 1);
    return { status: 'ready', storage: storage.engine };
  });
};
