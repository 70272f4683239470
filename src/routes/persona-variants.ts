/** GET /v1/personas/{id}/variants/{name}: a variant merged over its persona version. HTTP only; the merge lives in src/personas/variants.ts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { CompiledPersonas } from '../refine/compiled-personas.js';
import { commonErrors, notFoundError } from '../schemas/common.js';
import { PersonaPinFields, PersonaVersionHeader } from '../schemas/persona-history.js';

const VariantParams = Type.Object({
  id: Type.String({ description: 'Persona id' }),
  name: Type.String({ description: 'The variant, a key of the persona\'s `variants`' }),
});

const VariantQuery = Type.Object(
  { personaVersion: PersonaPinFields.personaVersion, personaLabel: PersonaPinFields.personaLabel },
  { additionalProperties: false },
);

const MergedVariant = Type.Object(
  {
    id: Type.String({ description: 'Persona id' }),
    name: Type.String({ description: "The persona version's name" }),
    version: Type.Integer({ description: 'The persona version whose variant this is' }),
    variant: Type.String(),
    attributes: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description:
        "The version's attributes with the variant merged over them, without `variants`: what a refine, check or chat completion naming the variant reads",
    }),
  },
  { additionalProperties: false },
);

export const personaVariantRoutes: FastifyPluginAsyncTypebox<{ compiled: CompiledPersonas }> = async (app, { compiled }) => {
  app.get('/personas/:id/variants/:name', {
    config: { scope: 'personas:read' },
    schema: {
      tags: ['personas'],
      summary: "Get one of a persona's variants, merged over its attributes",
      description:
        'The attributes a request naming `variant` uses: the variant\'s values replace the base\'s key by key, `vocabulary` and `enforce` merge entry by entry, ' +
        '`avoid`, `casing` and `terms` are the union (docs/rules-and-attributes.md, "Variants"). The newest version\'s variant unless `personaVersion` or `personaLabel` pins one. ' +
        '404 when the persona, the version or the variant does not exist.',
      security: [{ bearerAuth: [] }],
      params: VariantParams,
      querystring: VariantQuery,
      response: { 200: { description: 'The merged attributes', headers: PersonaVersionHeader, ...MergedVariant }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const { id, name } = request.params;
      const persona = await compiled.variant(request.principal.accountId, id, name, request.query);
      reply.header('x-persona-version', String(persona.version));
      reply.header('x-persona-variant', name);
      return { id, name: persona.name, version: persona.version, variant: name, attributes: persona.attributes };
    },
  });
};
