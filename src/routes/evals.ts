/** Evaluation samples and runs: HTTP only. Rules live in EvalSamples and Evaluations (docs/evaluations.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EvalRunner, RefineAdmission } from '../evals/eval-runner.js';
import type { Evaluations } from '../evals/evaluations.js';
import { rateLimited } from '../errors.js';
import type { EvalSamples, SampleSet } from '../evals/samples.js';
import { actorOf } from '../http/auth.js';
import type { Metering } from '../usage/metering.js';
import { answeredError } from '../http/error-handler.js';
import { EVENT_STREAM_HEADERS, EventStream } from '../http/event-stream.js';
import { ConcurrencyLimiter } from '../limits/concurrency-limiter.js';
import { commonErrors, IfMatchHeaders, NextPageHeader, notFoundError, preconditionError } from '../schemas/common.js';
import {
  CompareQuery,
  EvalComparisonSchema,
  EvalParams,
  EvalRunList,
  ListEvalsQuery,
  SampleSet as SampleSetSchema,
  SamplesBody,
  StartEvalBody,
} from '../schemas/evals.js';
import { PersonaParams } from '../schemas/persona.js';

const tags = ['evaluations'];
const errorRef = (description: string) => ({ description, ...Type.Ref('Error') });
const samplesETag = { ETag: Type.String({ description: 'The samples\' version (`"3"`; `"0"` before any PUT): send it back in `If-Match`' }) };

/**
 * 200 samples of 20,000 characters are 12 MB of JSON at 3 bytes a character: the whole set must
 * fit one body (docs/evaluations.md, "Samples").
 */
const SAMPLES_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * Each open events stream reads the database every 0.5 s: one account's streams are capped per
 * instance so they cannot load it for everyone (docs/evaluations.md, "Limits").
 */
export const EVENT_STREAMS_PER_ACCOUNT = 16;

export interface EvalRouteOptions {
  /** BODY_LIMIT_BYTES: the samples' own limit never goes under it. */
  bodyLimitBytes: number;
  samples: EvalSamples;
  evaluations: Evaluations;
  runner: EvalRunner;
  metering: Metering;
}

/** Each sample's refine is admitted against the budgets of the key that started the run, as its own refine request would be. */
function admissionFor(request: FastifyRequest, metering: Metering): RefineAdmission {
  const who = { ...request.principal, requestId: request.id };
  return { run: async (estimate, refine) => (await metering.run(who, estimate, refine)).value };
}

export const evalRoutes: FastifyPluginAsyncTypebox<EvalRouteOptions> = async (app, { bodyLimitBytes, samples, evaluations, runner, metering }) => {
  const eventStreams = new ConcurrencyLimiter(EVENT_STREAMS_PER_ACCOUNT);
  runner.startBackground();
  // Before the server stops taking requests: the runs here end as interrupted, so their event streams end too.
  app.addHook('preClose', () => runner.close());

  const sendSamples = (reply: FastifyReply, set: SampleSet) => reply.header('etag', set.etag).send({ samples: set.samples });

  app.get('/personas/:id/samples', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: 'The persona\'s evaluation samples',
      description: 'Belong to the persona, not to a version. `ETag` is the samples\' own version.',
      params: PersonaParams,
      response: { 200: { description: 'The samples', headers: samplesETag, ...SampleSetSchema }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => sendSamples(reply, await samples.get(request.principal.accountId, request.params.id)),
  });

  app.put('/personas/:id/samples', {
    config: { scope: 'personas:write' },
    bodyLimit: Math.max(bodyLimitBytes, SAMPLES_BODY_LIMIT),
    schema: {
      tags,
      summary: 'Replace the persona\'s evaluation samples',
      description:
        'The whole set. A sample unchanged (same name, content and expect) keeps its id, sent or not; a changed or new one gets a new id. ' +
        'An id that is not one of the persona\'s samples is a 400. `If-Match` is compared with the samples\' ETag (412 on mismatch). ' +
        'Bodies over `BODY_LIMIT_BYTES` (1 MiB by default) share a budget (32 MiB per instance, 16 MiB per account): past it, 503 or 429 with `Retry-After`.',
      params: PersonaParams,
      headers: IfMatchHeaders,
      body: SamplesBody,
      response: { 200: { description: 'The samples as stored', headers: samplesETag, ...SampleSetSchema }, ...commonErrors, ...notFoundError, ...preconditionError },
    },
    handler: async (request, reply) =>
      sendSamples(reply, await samples.replace(actorOf(request), request.params.id, request.body.samples, request.headers['if-match'])),
  });

  app.post('/personas/:id/evals', {
    config: { scope: 'evals' },
    schema: {
      tags,
      summary: 'Evaluate a persona version on its samples',
      description:
        'Refines every sample with that exact version through the normal pipeline (rules, preserve, repair, usage, budgets and the account\'s ' +
        'concurrency cap apply to each), scores each answer (judged when `judge` is given) and checks its `expect`. Answers 202 at once with ' +
        'the run and `Location`; follow it with GET or its `events`. The keys are held in memory for the run only. ' +
        'At most 2 runs per account at once: a third is a 429 with `Retry-After`.',
      params: PersonaParams,
      body: StartEvalBody,
      response: {
        202: { description: 'The run, queued', headers: { Location: Type.String() }, ...Type.Ref('EvalRun') },
        ...commonErrors,
        ...notFoundError,
      },
    },
    handler: async (request, reply) => {
      const run = await evaluations.start(actorOf(request), request.params.id, request.body, admissionFor(request, metering));
      return reply.code(202).header('location', `/v1/personas/${run.personaId}/evals/${run.id}`).send(run);
    },
  });

  app.get('/personas/:id/evals', {
    config: { scope: 'evals' },
    schema: {
      tags,
      summary: 'The persona\'s evaluation runs, newest first',
      description: 'Without results (GET one run for those). Pages of `limit` (default 100); a `Link: <…>; rel="next"` header points to the next page.',
      params: PersonaParams,
      querystring: ListEvalsQuery,
      response: { 200: { description: 'The runs', headers: NextPageHeader, ...EvalRunList }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const page = await evaluations.list(request.principal.accountId, id, request.query);
      if (page.nextCursor !== undefined) {
        reply.header('link', `</v1/personas/${encodeURIComponent(id)}/evals?limit=${page.limit}&cursor=${page.nextCursor}>; rel="next"`);
      }
      return page.runs;
    },
  });

  // A static segment wins over a parameter in the router, so `compare` is never read as an evaluation id.
  app.get('/personas/:id/evals/compare', {
    config: { scope: 'evals' },
    schema: {
      tags,
      summary: 'Compare two evaluation runs sample by sample',
      description: 'Per sample: each run\'s score and passed, and the change. `regressions`: samples whose score fell by 10 or more, or that passed in base and fail in head.',
      params: PersonaParams,
      querystring: CompareQuery,
      response: { 200: { description: 'The comparison', ...EvalComparisonSchema }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => evaluations.compare(request.principal.accountId, request.params.id, request.query.base, request.query.head),
  });

  app.get('/personas/:id/evals/:evalId', {
    config: { scope: 'evals' },
    schema: {
      tags,
      summary: 'One evaluation run with its results',
      params: EvalParams,
      response: { 200: { description: 'The run', ...Type.Ref('EvalRunWithResults') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => evaluations.get(request.principal.accountId, request.params.id, request.params.evalId),
  });

  app.post('/personas/:id/evals/:evalId/cancel', {
    config: { scope: 'evals' },
    schema: {
      tags,
      summary: 'Stop a run',
      description: 'What finished is kept. Stops it on whichever instance runs it (there within 2 s). A run that already ended: 409.',
      params: EvalParams,
      response: { 200: { description: 'The run, cancelled', ...Type.Ref('EvalRun') }, ...commonErrors, ...notFoundError, 409: errorRef('The run already ended') },
    },
    handler: async (request) => evaluations.cancel(actorOf(request), request.params.id, request.params.evalId),
  });

  app.get('/personas/:id/evals/:evalId/events', {
    config: { scope: 'evals' },
    schema: {
      tags,
      summary: 'Follow a run as server-sent events',
      description:
        'First what happened so far (a `result` per finished sample, then `progress`), then as it happens (read from the database every 0.5 s, ' +
        'so any instance answers): `result` (`EvalResult`), `progress` (`EvalProgressEvent`), and last `done` (`EvalDoneEvent`, the run completed) ' +
        'or `error` (`EvalErrorEvent`: failed, cancelled or interrupted). `: keep-alive` comments every 15 s. ' +
        `An account may hold ${EVENT_STREAMS_PER_ACCOUNT} such streams open on an instance; one more is a 429 with \`Retry-After\`.`,
      params: EvalParams,
      response: {
        200: { description: 'The events', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...commonErrors,
        ...notFoundError,
      },
    },
    handler: async (request, reply) => {
      const release = eventStreams.tryAcquire(request.principal.accountId);
      if (!release) throw rateLimited(`this account already has ${EVENT_STREAMS_PER_ACCOUNT} evaluation event streams open here; close one`, 5);
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      let events: Awaited<ReturnType<Evaluations['events']>>;
      try {
        events = await evaluations.events(request.principal.accountId, request.params.id, request.params.evalId, gone.signal);
      } catch (error) {
        release();
        throw error;
      }
      const stream = new EventStream();
      void (async () => {
        try {
          for await (const { event, data } of events) await stream.send(event, data);
        } catch (error) {
          // Cut short (storage unavailable): the client reconnects and gets everything again.
          answeredError(error, request);
        } finally {
          stream.end();
          release();
        }
      })();
      return reply.code(200).headers(EVENT_STREAM_HEADERS).send(stream.body);
    },
  });
};
