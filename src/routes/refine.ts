/** POST /v1/refine: HTTP only. The use case lives in RefineService. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { IdempotencyHooks, IdempotencySettlement } from '../http/idempotency.js';
import { holdRefineSlot } from '../http/refine-slot.js';
import type { ConcurrencyLimiter } from '../limits/concurrency-limiter.js';
import type { Metrics } from '../metrics.js';
import type { RefineService } from '../refine/refine-service.js';
import { PersonaVersionHeader } from '../schemas/persona-history.js';
import { answerHeaders } from './refine-answer.js';
import { sendRefineStream } from './refine-stream.js';
import { parseCacheControl } from '../cache/cache-control.js';
import { CacheControlHeaders, commonErrors, IdempotencyHeaders, idempotencyErrors, notFoundError, providerErrors } from '../schemas/common.js';
import { PersonaScoreHeader, RefineBody, RefineResponse } from '../schemas/refine.js';
import { estimatedRefineTokens } from '../usage/token-estimate.js';

const RefineHeaders = Type.Composite([IdempotencyHeaders, CacheControlHeaders]);

export interface RefineRouteOptions {
  refine: RefineService;
  concurrency: ConcurrencyLimiter;
  metrics: Metrics;
  idempotency: IdempotencyHooks;
  /** Takes a request's Idempotency-Key over, for a stream to settle once it ended. */
  deferIdempotency: (request: FastifyRequest) => IdempotencySettlement | undefined;
}

export const refineRoutes: FastifyPluginAsyncTypebox<RefineRouteOptions> = async (app, { refine, concurrency, metrics, idempotency, deferIdempotency }) => {
  app.post('/refine', {
    config: { scope: 'refine', budgeted: (request) => estimatedRefineTokens(request.body as RefineBody) },
    ...idempotency,
    schema: {
      tags: ['refine'],
      summary: "Rewrite text in a persona's voice through the caller's own provider key",
      description:
        'Provider failures carry `X-Error-Source: provider` and a message starting with `provider "<id>"`. ' +
        'A successful answer carries `Server-Timing: provider;dur=…, total;dur=…`, and `X-Persona-Violations` ' +
        '(e.g. `avoid=1,maxWords=1,preserve=2`) when the persona\'s rules are still broken after the fixes and one repair call; ' +
        'every answer carries `X-Persona-Score: <0–100>`, the deterministic score of the answer (as `POST /v1/check` computes it with `original` = `content`; a streamed one in `done.score`); ' +
        '`preserve` counts the numbers, URLs, e-mail addresses, code and template placeholders of `content` missing from the answer. ' +
        'With `judge`, the final answer is rated against the persona\'s descriptive attributes: `X-Persona-Score` includes the voice, `X-Persona-Ratings` lists `attribute=rating`, ' +
        '`X-Persona-Judge-Error` says why when the judge failed (the refine still succeeds), and the judge\'s calls count in `X-Usage`. ' +
        'Provider `rules` applies only the deterministic rules and needs no `providerApiKey`. ' +
        'With `"stream": true` the answer is `text/event-stream`: `delta` events, then exactly one `done` or `error` ' +
        '(each `data` one JSON object; `: keep-alive` comments every 15 s). Failures before the first text are ordinary JSON errors. ' +
        'A stream applies the vocabulary, casing and emoji fixes as it goes and adds the sign-off before `done`; ' +
        'what only the model can fix gets no repair call and is reported in `done.violations`. ' +
        '`personaVersion` or `personaLabel` pins the persona version used (not both); every answer carries `X-Persona-Version`. ' +
        '`variant` names one of that version\'s `variants`, merged over its attributes (an unknown one is a 400 listing them); the answer then carries `X-Persona-Variant`. ' +
        'Every answer names who produced it in `X-Provider: <id>/<model>` and what it cost in ' +
        '`X-Usage: input_tokens=…, output_tokens=…, provider_calls=…` (summed over every provider call, retries, fallbacks and the repair call included; ' +
        'a token member is left out when a provider did not report it). ' +
        'With `Cache-Control: max-age=N` an answer stored for the same request at most N seconds ago is returned (`X-Cache: HIT` and `Age`) ' +
        'instead of calling the provider; `no-cache` forces a fresh answer and stores it; `no-store` neither reads nor stores; ' +
        'the answer then says `X-Cache: HIT` or `X-Cache: MISS`.',
      security: [{ bearerAuth: [] }],
      headers: RefineHeaders,
      body: RefineBody,
      response: { 200: { description: 'The refined text', headers: { ...PersonaVersionHeader, ...PersonaScoreHeader }, ...RefineResponse }, ...commonErrors, ...notFoundError, ...idempotencyErrors, ...providerErrors },
    },
    handler: async (request, reply) => {
      const { accountId } = request.principal;
      const cachePolicy = parseCacheControl(request.headers['cache-control']);
      const slot = holdRefineSlot(request, reply, concurrency, metrics);
      let streaming = false;
      try {
        if (request.body.stream === true) {
          const refined = await refine.refineStream(accountId, request.body, slot.signal, cachePolicy);
          streaming = true;
          const onReplaced = () => metrics.streamsReplaced.inc();
          return sendRefineStream({ request, reply, refined, settlement: deferIdempotency(request), finished: slot.release, onReplaced });
        }
        const result = await refine.refine(accountId, request.body, slot.signal, cachePolicy);
        const total = reply.elapsedTime;
        reply.headers(answerHeaders(result, result));
        reply.header('server-timing', `provider;dur=${result.providerMs.toFixed(1)}, total;dur=${total.toFixed(1)}`);
        return reply.type('application/json; charset=utf-8').send(JSON.stringify({ response: result.response }));
      } finally {
        // A stream holds its slot and watches its client until it ends.
        if (!streaming) slot.release();
      }
    },
  });
};
