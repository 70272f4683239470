/** GET /v1/usage: the account's daily usage. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { commonErrors } from '../schemas/common.js';
import { UsageList, UsageQuery } from '../schemas/usage.js';
import type { UsageService } from '../usage/usage-service.js';

export const usageRoutes: FastifyPluginAsyncTypebox<{ usage: UsageService }> = async (app, { usage }) => {
  app.get('/usage', {
    config: { scope: 'usage:read' },
    schema: {
      tags: ['usage'],
      summary: "The account's usage, one row per UTC day × provider × model × endpoint",
      description:
        'Counts refines, failures, cache hits, provider calls and the tokens the providers reported. ' +
        'Oldest day first, then provider and model. Days without refines have no row. Instances write their counts ' +
        'at least once a second, so another instance\'s last second may not be in the answer yet. ' +
        'With `groupBy=key` each row is also split by the API key that refined and carries its `keyId`. ' +
        '`endpoint` tells refines (`refine`) from chat completions (`chat`): one day\'s refines and completions through one model are two rows.',
      security: [{ bearerAuth: [] }],
      querystring: UsageQuery,
      response: { 200: { description: 'The usage rows', ...UsageList }, ...commonErrors },
    },
    handler: async (request) => usage.list(request.principal.accountId, request.query),
  });
};
