/** A persona's retention policy and review queue (docs/quality.md, "The review queue"). HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../http/auth.js';
import type { ReviewQueue } from '../quality/review-queue.js';
import { commonErrors, NextPageHeader, notFoundError } from '../schemas/common.js';
import { PersonaParams } from '../schemas/persona.js';
import { ResolveBody, RetentionPolicy, ReviewList, ReviewParams, ReviewQuery } from '../schemas/reviews.js';

const tags = ['personas'];
const conflictError = { 409: { description: 'The review is resolved already', ...Type.Ref('Error') } };

export const reviewRoutes: FastifyPluginAsyncTypebox<{ reviews: ReviewQueue }> = async (app, { reviews }) => {
  app.get('/personas/:id/retention', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: "The persona's retention policy for the review queue",
      description: '`{"keep": "none", "days": 30}` until one is set.',
      security: [{ bearerAuth: [] }],
      params: PersonaParams,
      response: { 200: { description: 'The policy', ...RetentionPolicy }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => reviews.retention(request.principal.accountId, request.params.id),
  });

  app.put('/personas/:id/retention', {
    config: { scope: 'personas:write' },
    schema: {
      tags,
      summary: 'Set which answers the persona keeps for review, and for how long',
      description:
        'Opt-in: while `keep` is not `none`, the refines and chat completions it matches are kept with their text, answer, score and findings ' +
        '(never a provider key) and deleted after `days` (docs/quality.md, "The review queue"). `keep: none` deletes what was kept. ' +
        'Another instance follows a change within 10 s.',
      security: [{ bearerAuth: [] }],
      params: PersonaParams,
      body: RetentionPolicy,
      response: { 200: { description: 'The policy as set', ...RetentionPolicy }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => reviews.setRetention(request.principal.accountId, request.params.id, request.body),
  });

  app.get('/personas/:id/reviews', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: "The persona's kept answers, newest first",
      description:
        '`status=open` (default): in the queue; `resolved`: resolved and not yet deleted. Pages of `limit` (default 100); ' +
        'a `Link: <…>; rel="next"` header points to the next page.',
      security: [{ bearerAuth: [] }],
      params: PersonaParams,
      querystring: ReviewQuery,
      response: { 200: { description: 'The reviews', headers: NextPageHeader, ...ReviewList }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const page = await reviews.list(request.principal.accountId, request.params.id, request.query);
      if (page.nextCursor !== undefined) {
        const params = new URLSearchParams();
        if (request.query.status !== undefined) params.set('status', request.query.status);
        params.set('limit', String(page.limit));
        params.set('cursor', page.nextCursor);
        reply.header('link', `</v1/personas/${encodeURIComponent(request.params.id)}/reviews?${params}>; rel="next"`);
      }
      return page.reviews;
    },
  });

  app.post('/personas/:id/reviews/:requestId/resolve', {
    config: { scope: 'personas:write' },
    schema: {
      tags,
      summary: 'Resolve a review, optionally adding its content to the evaluation samples',
      description:
        'With `addSample`, the review\'s `content` is appended to the persona\'s samples (their ETag moves) and the answer carries the new `sampleId`. ' +
        'A review resolved already is a 409, so a retry never adds a second sample; one not in the queue is a 404.',
      security: [{ bearerAuth: [] }],
      params: ReviewParams,
      body: ResolveBody,
      response: { 200: { description: 'The review, resolved', ...Type.Ref('Review') }, ...commonErrors, ...notFoundError, ...conflictError },
    },
    handler: async (request) => reviews.resolve(actorOf(request), request.params.id, request.params.requestId, request.body.addSample),
  });
};
