/**
 * The bare Fastify "hello world" the CRUD figures are divided by: same framework,
 * same machine, same load, none of our hooks, logging or storage. Reports { url } over IPC.
 * Usage: node baseline-server.js [port]  (cold start passes a port it then polls).
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
const url = await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
process.send?.({ url });
process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
