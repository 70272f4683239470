/**
 * The least any Node service can do for a chat completion: a bare Fastify route that takes an
 * OpenAI Chat Completions request, forwards it to the same fake provider over a keep-alive
 * undici pool as the OpenAI Responses request the service sends (the captured model and
 * persona instructions, the caller's messages as input items), and answers OpenAI's
 * chat.completion. No auth, validation, logging, metrics, storage or rules.
 * POST /v1/chat/completions's CPU per request is compared to this in the same run.
 * Usage: node bare-chat-proxy-server.js <provider responses url> <captured provider body file>; reports { url } over IPC.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { Pool } from 'undici';

const [target, capturedFile] = process.argv.slice(2);
if (!target || !capturedFile) throw new Error('usage: bare-chat-proxy-server.js <provider responses url> <captured provider body file>');
const url = new URL(target);
const template = JSON.parse(readFileSync(capturedFile, 'utf8')) as Record<string, unknown>;
const pool = new Pool(url.origin, { keepAliveTimeout: 30_000 });

interface ChatRequest {
  model: string;
  messages: { role: 'system' | 'user'; content: string }[];
}

interface ResponsesAnswer {
  id: string;
  output: { content: { text: string }[] }[];
  usage: { input_tokens: number; output_tokens: number };
}

// The same input items the service's Responses wire format writes for system and user turns.
const inputItem = ({ role, content }: ChatRequest['messages'][number]) =>
  role === 'system' ? { role: 'developer', content } : { role: 'user', content: [{ type: 'input_text', text: content }] };

const app = Fastify({ logger: false });
app.post('/v1/chat/completions', async (request, reply) => {
  const { model, messages } = request.body as ChatRequest;
  const answer = await pool.request({
    method: 'POST',
    path: url.pathname,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${request.headers['x-provider-api-key']}` },
    body: JSON.stringify({ ...template, input: messages.map(inputItem) }),
  });
  const body = (await answer.body.json()) as ResponsesAnswer;
  const { input_tokens: prompt, output_tokens: completion } = body.usage;
  return reply.type('application/json; charset=utf-8').send(
    JSON.stringify({
      id: body.id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: body.output[0]!.content[0]!.text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    }),
  );
});
const listening = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url: listening });
process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
