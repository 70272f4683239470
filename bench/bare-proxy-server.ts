/**
 * The least any Node service can do for a refine: a bare Fastify route that forwards a
 * refine-sized request to the same fake provider over a keep-alive undici pool and returns
 * the answer's text. No auth, validation, logging, metrics, storage or rules. Refine's
 * throughput and CPU per request are compared to this in the same run.
 * Usage: node bare-proxy-server.js <provider url> <captured provider body file>; reports { url } over IPC.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { Pool } from 'undici';

const [target, capturedFile] = process.argv.slice(2);
if (!target || !capturedFile) throw new Error('usage: bare-proxy-server.js <provider chat-completions url> <captured provider body file>');
const url = new URL(target);
// The OpenAI Responses request the service sends for the bench persona (model, instructions):
// the proxy sends the same with the caller's content as the input, so both send about the same bytes.
const template = JSON.parse(readFileSync(capturedFile, 'utf8')) as Record<string, unknown>;
const pool = new Pool(url.origin, { keepAliveTimeout: 30_000 });

const app = Fastify({ logger: false });
app.post('/refine', async (request, reply) => {
  const { content, providerApiKey } = request.body as { content: string; providerApiKey: string };
  const answer = await pool.request({
    method: 'POST',
    path: url.pathname,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${providerApiKey}` },
    body: JSON.stringify({ ...template, input: [{ role: 'user', content: [{ type: 'input_text', text: content }] }] }),
  });
  const body = (await answer.body.json()) as { output: { content: { text: string }[] }[] };
  return reply.type('application/json; charset=utf-8').send(JSON.stringify({ response: body.output[0]!.content[0]!.text }));
});
const listening = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: listening });
process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
