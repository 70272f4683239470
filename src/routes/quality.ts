/** GET /v1/personas/{id}/quality: a persona's quality on live traffic. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { QualityReport } from '../quality/quality-report.js';
import { commonErrors, notFoundError } from '../schemas/common.js';
import { PersonaParams } from '../schemas/persona.js';
import { QualityList, QualityQuery } from '../schemas/quality.js';

export const qualityRoutes: FastifyPluginAsyncTypebox<{ quality: QualityReport }> = async (app, { quality }) => {
  app.get('/personas/:id/quality', {
    config: { scope: 'usage:read' },
    schema: {
      tags: ['usage'],
      summary: "A persona's quality on live traffic, by UTC day or by version",
      description:
        'Every refine, chat completion and check answered with the persona counts (docs/quality.md): answers, their mean persona score, ' +
        'those under the version\'s `minScore`, those with a required finding left, the findings by rule, and the feedback given on them. ' +
        'Numbers only: no text is kept for this. Default: the last 30 days, by day. Days without answers or feedback have no row. ' +
        'Instances write their counts at least once per `USAGE_FLUSH_MS` (1 s), so another instance\'s last second may not be in the answer yet.',
      security: [{ bearerAuth: [] }],
      params: PersonaParams,
      querystring: QualityQuery,
      response: { 200: { description: 'The quality rows', ...QualityList }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => ({ rows: await quality.list(request.principal.accountId, request.params.id, request.query) }),
  });
};
