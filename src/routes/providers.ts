/** GET /v1/providers: what a refine may name. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RefineService } from '../refine/refine-service.js';
import { commonErrors } from '../schemas/common.js';
import { ProviderList } from '../schemas/providers.js';

export const providerRoutes: FastifyPluginAsyncTypebox<{ refine: RefineService }> = async (app, { refine }) => {
  // Providers come from the operator's configuration, fixed for the life of the process.
  const providers = refine.listProviders();
  app.get('/providers', {
    config: { scope: 'refine' },
    schema: {
      tags: ['refine'],
      summary: 'The providers this instance can call',
      description:
        'Built-in providers first, then the OpenAI-compatible endpoints the operator declared, then `rules` ' +
        '(deterministic rules only, no model, no key). Default models reflect the operator\'s `PROVIDER_MODEL_<ID>`.',
      security: [{ bearerAuth: [] }],
      response: { 200: { description: 'The providers', ...ProviderList }, ...commonErrors },
    },
    handler: async () => providers,
  });
};
