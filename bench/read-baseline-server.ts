/**
 * The least a Node service can do for `GET /v1/personas/{id}`: bare Fastify doing the same
 * work the service's read must do and nothing else — the same key lookup (SHA-256 of the
 * bearer token, an in-memory cache of 2 s in front of a prepared SQLite read of the key),
 * one prepared better-sqlite3 point read of the persona from the service's own database
 * file, the stored attributes spliced in as stored, and the same JSON log line, batched the
 * same way. No hooks, validation, rate limit, metrics, ETag or request-id header.
 * Usage: node read-baseline-server.js <sqlite file> <log file>; reports { url } over IPC.
 */
import { hash } from 'node:crypto';
import Sqlite from 'better-sqlite3';
import Fastify, { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { pino } from 'pino';

const [file, logFile] = process.argv.slice(2);
if (!file || !logFile) throw new Error('usage: read-baseline-server.js <sqlite file> <log file>');
const database = new Sqlite(file, { readonly: true });
const keyByHash = database.prepare('select id, account_id from api_keys where key_hash = ? and revoked_at is null');
const personaById = database.prepare('select id, name, attributes from personas where account_id = ? and id = ?');
const keys = new Map<string, { accountId: string; until: number }>();

const stream = pino.destination({ dest: logFile, sync: false, minLength: 4_096 });
setInterval(() => stream.flush(), 1_000).unref();
/** The service's one line per request (src/http/request-context.ts), written the same way: by Fastify's log controller. */
class OneLine extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    reply.log.info({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request completed');
  }
}

const app = Fastify({ logger: { level: 'info', stream }, logController: new OneLine() });

app.get<{ Params: { id: string } }>('/v1/personas/:id', (request, reply) => {
  const token = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  const keyHash = hash('sha256', token ?? '', 'hex');
  let key = keys.get(keyHash);
  if (!key || key.until <= Date.now()) {
    const row = keyByHash.get(keyHash) as { id: string; account_id: string } | undefined;
    if (!row) return reply.code(401).send({ error: 401, message: 'API key is not valid or has been revoked' });
    key = { accountId: row.account_id, until: Date.now() + 2_000 };
    keys.set(keyHash, key);
  }
  const persona = personaById.get(key.accountId, request.params.id) as { id: string; name: string; attributes: string } | undefined;
  if (!persona) return reply.code(404).send({ error: 404, message: 'not found' });
  reply.type('application/json; charset=utf-8').send(`{"id":${JSON.stringify(persona.id)},"name":${JSON.stringify(persona.name)},"attributes":${persona.attributes}}`);
});

const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url });
process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
