/** POST /v1/feedback and GET /v1/personas/{id}/feedback: ratings of live answers. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FeedbackService } from '../quality/feedback-service.js';
import { commonErrors, NextPageHeader, notFoundError } from '../schemas/common.js';
import { PersonaParams } from '../schemas/persona.js';
import { FeedbackBody, FeedbackList, FeedbackQuery } from '../schemas/quality.js';

export const feedbackRoutes: FastifyPluginAsyncTypebox<{ feedback: FeedbackService }> = async (app, { feedback }) => {
  app.post('/feedback', {
    config: { scope: 'refine' },
    schema: {
      tags: ['refine'],
      summary: 'Rate the answer to a refine or chat completion',
      description:
        '`requestId` is the `X-Request-Id` of one of this account\'s refines or chat completions of the last 30 days; another account\'s, ' +
        'an unknown one or an older one is a 404. A second feedback on the same request replaces the first (its rating moves in the quality counts). ' +
        'The rating counts in `GET /v1/personas/{id}/quality` on the answer\'s day and version. Feedback right after its answer is found, ' +
        'whichever instance answered (a 404 may then take one `USAGE_FLUSH_MS` longer).',
      security: [{ bearerAuth: [] }],
      body: FeedbackBody,
      response: { 201: { description: 'The feedback stored', ...Type.Ref('Feedback') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const given = await feedback.give(request.principal.accountId, request.principal.keyId, request.body);
      return reply.code(201).send(given);
    },
  });

  app.get('/personas/:id/feedback', {
    config: { scope: 'usage:read' },
    schema: {
      tags: ['usage'],
      summary: "Feedback on a persona's answers, newest first",
      description:
        'Pages of `limit` (default 100); a `Link: <…>; rel="next"` header points to the next page. `rating` keeps only `up` or `down`. ' +
        'Deleting the persona deletes its feedback.',
      security: [{ bearerAuth: [] }],
      params: PersonaParams,
      querystring: FeedbackQuery,
      response: { 200: { description: 'The feedback', headers: NextPageHeader, ...FeedbackList }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const page = await feedback.list(request.principal.accountId, request.params.id, request.query);
      if (page.nextCursor !== undefined) {
        const params = new URLSearchParams();
        if (request.query.rating !== undefined) params.set('rating', request.query.rating);
        params.set('limit', String(page.limit));
        params.set('cursor', page.nextCursor);
        reply.header('link', `</v1/personas/${encodeURIComponent(request.params.id)}/feedback?${params}>; rel="next"`);
      }
      return page.feedback;
    },
  });
};
