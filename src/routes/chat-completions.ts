/**
 * POST /v1/chat/completions: OpenAI's Chat Completions, answered in a persona's voice through
 * the refine run (ChatService). HTTP only: the persona and the provider key come from headers
 * any OpenAI client can set, errors leave in OpenAI's body (`config.errorBody`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { parseCacheControl } from '../cache/cache-control.js';
import type { ChatService } from '../chat/chat-service.js';
import { personaReference } from '../chat/chat-target.js';
import type { IdempotencyHooks, IdempotencySettlement } from '../http/idempotency.js';
import { holdRefineSlot } from '../http/refine-slot.js';
import type { ConcurrencyLimiter } from '../limits/concurrency-limiter.js';
import type { Metrics } from '../metrics.js';
import { ChatCompletion, ChatCompletionBody, ChatHeaders, openAiErrors } from '../schemas/chat.js';
import { PersonaVersionHeader } from '../schemas/persona-history.js';
import { PersonaScoreHeader } from '../schemas/refine.js';
import { estimatedChatTokens } from '../usage/token-estimate.js';
import { chatAnswerHeaders, chatCompletion, completionIdentity } from './chat-answer.js';
import { sendChatStream } from './chat-stream.js';

/** The request headers that change what is asked: a retry with the same Idempotency-Key must send them alike. */
export const CHAT_HASHED_HEADERS = ['x-persona', 'x-persona-variant', 'x-provider-api-key'] as const;

export interface ChatRouteOptions {
  chat: ChatService;
  concurrency: ConcurrencyLimiter;
  metrics: Metrics;
  idempotency: IdempotencyHooks;
  /** Takes a request's Idempotency-Key over, for a stream to settle once it ended. */
  deferIdempotency: (request: FastifyRequest) => IdempotencySettlement | undefined;
}

export const chatCompletionRoutes: FastifyPluginAsyncTypebox<ChatRouteOptions> = async (app, { chat, concurrency, metrics, idempotency, deferIdempotency }) => {
  app.post('/chat/completions', {
    config: { scope: 'refine', errorBody: 'openai', usageEndpoint: 'chat', budgeted: (request) => estimatedChatTokens(request.body as ChatCompletionBody) },
    ...idempotency,
    schema: {
      tags: ['chat'],
      summary: "OpenAI's Chat Completions, answered in a persona's voice through the caller's own provider key",
      description:
        'A drop-in base URL for OpenAI clients (`{base}/v1`). The persona is `X-Persona` (or the body\'s `persona`): `<personaId>`, `<personaId>@<label>` or `<personaId>:<version>`; ' +
        'one of its variants is `X-Persona-Variant` (or the body\'s `variant`), answered in `X-Persona-Variant`; ' +
        'the caller\'s provider key is `X-Provider-Api-Key`; `model` is `<provider>/<model>` or `<provider>`. ' +
        'The persona\'s instructions go first, before the caller\'s messages; its rules then apply to the answer\'s text as a refine applies them (no `preserve`), ' +
        'with one repair call while a required finding remains (not streamed). An answer of tool calls, or one asked for as JSON, is not rewritten: `X-Persona-Rules: skipped` (else `applied`). ' +
        'Headers as POST /v1/refine: `X-Persona-Version`, `X-Persona-Variant`, `X-Persona-Score`, `X-Persona-Violations`, `X-Usage`, `X-Provider`. `usage` sums every provider call. ' +
        'With `"stream": true`: `data: <chat.completion.chunk>` lines, the usage chunk with `stream_options.include_usage`, then `data: [DONE]`. ' +
        'Errors use OpenAI\'s body `{"error":{"message","type","param","code"}}` with the status the rest of the API gives; a provider refusing the caller\'s key is a 401. ' +
        'The answer cache as POST /v1/refine (`Cache-Control: max-age=N`, `no-cache`, `no-store`; `X-Cache` and `Age`), keyed by the whole conversation (docs/chat-completions.md).',
      security: [{ bearerAuth: [] }],
      headers: ChatHeaders,
      body: ChatCompletionBody,
      response: { 200: { description: 'The completion', headers: { ...PersonaVersionHeader, ...PersonaScoreHeader }, ...ChatCompletion }, ...openAiErrors([400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 502, 503, 504]) },
    },
    handler: async (request, reply) => {
      const { accountId } = request.principal;
      const variant = request.headers['x-persona-variant'] ?? request.body.variant;
      const persona = { ...personaReference(request.headers['x-persona'] ?? request.body.persona), ...(variant === undefined ? {} : { variant }) };
      const cachePolicy = parseCacheControl(request.headers['cache-control']);
      const slot = holdRefineSlot(request, reply, concurrency, metrics);
      const job = {
        accountId, request: request.body, persona, providerApiKey: request.headers['x-provider-api-key'], signal: slot.signal, ...(cachePolicy ? { cachePolicy } : {}),
      };
      let streaming = false;
      try {
        if (request.body.stream === true) {
          const run = await chat.start(job, 'stream');
          streaming = true;
          return sendChatStream({
            request, reply, run, identity: completionIdentity(request.id, run), includeUsage: request.body.stream_options?.include_usage === true,
            settlement: deferIdempotency(request), finished: slot.release, onReplaced: () => metrics.streamsReplaced.inc(),
          });
        }
        const run = await chat.start(job, 'collect');
        let next = await run.pieces.next();
        while (!next.done) next = await run.pieces.next();
        const end = next.value;
        reply.headers(chatAnswerHeaders(run, end));
        reply.header('server-timing', `provider;dur=${end.providerMs.toFixed(1)}, total;dur=${reply.elapsedTime.toFixed(1)}`);
        return chatCompletion(completionIdentity(request.id, run), end);
      } finally {
        // A stream holds its slot and watches its client until it ends.
        if (!streaming) slot.release();
      }
    },
  });
};
