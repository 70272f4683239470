/** POST /v1/check: lint text against a persona's rules. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PersonaCheck } from '../refine/persona-check.js';
import { PersonaVersionHeader } from '../schemas/persona-history.js';
import { commonErrors, notFoundError } from '../schemas/common.js';
import { CheckBody, CheckResponse } from '../schemas/refine.js';

export const checkRoutes: FastifyPluginAsyncTypebox<{ checker: PersonaCheck }> = async (app, { checker }) => {
  app.post('/check', {
    config: { scope: 'refine' },
    schema: {
      tags: ['refine'],
      summary: "Check text against a persona's rules without calling a provider",
      description:
        "Reports every violation of the persona's rules (the attributes that configure one say so) with its offsets in `content`, " +
        'and any well-known attribute the rules and the prompt ignore because of its shape. ' +
        'With `original` (the text `content` was rewritten from), also reports as `preserve` every number, URL, e-mail address, code span or block and template placeholder of `original` ' +
        'that `content` lost, with its offsets in `original`, unless the persona turns `preserve` off. Changes nothing. ' +
        '`personaVersion` or `personaLabel` pins the persona version checked against (not both); the answer carries `X-Persona-Version`.',
      security: [{ bearerAuth: [] }],
      body: CheckBody,
      response: { 200: { description: 'The verdict', headers: PersonaVersionHeader, ...CheckResponse }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const { verdict, personaVersion } = await checker.check(request.principal.accountId, request.body);
      reply.header('x-persona-version', String(personaVersion));
      return verdict;
    },
  });
};
