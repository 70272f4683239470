/** POST /v1/personas/draft: a persona drafted from sample texts, stored nowhere. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { PersonaDrafter } from '../personas/drafting/persona-drafter.js';
import { commonErrors, providerErrors } from '../schemas/common.js';
import { DraftBody, PersonaDraftResponse } from '../schemas/persona-draft.js';
import { estimatedDraftTokens } from '../usage/token-estimate.js';
import { usageHeader } from '../usage/usage-tally.js';

const DraftHeaders = {
  'X-Usage': Type.String({ description: "The draft's calls and tokens, `input_tokens=…, output_tokens=…, provider_calls=…`" }),
  'X-Budget-Tokens-Remaining': Type.Optional(Type.Integer({ description: "What the key's tokensPerDay budgets had left after the draft, the least of them; only with one" })),
};

export interface PersonaDraftRouteOptions {
  drafter: PersonaDrafter;
}

export const personaDraftRoutes: FastifyPluginAsyncTypebox<PersonaDraftRouteOptions> = async (app, { drafter }) => {
  app.post('/personas/draft', {
    // Spends the key's budgets as a refine does, counted in usage as `drafted` (src/http/budgets.ts).
    config: { scope: 'personas:write', budgeted: (request) => estimatedDraftTokens((request.body as DraftBody).samples), usageEndpoint: 'drafted' },
    // A provider that cannot draft is a 400 before the key's budgets are touched.
    preHandler: async (request) => drafter.checkProvider(request.body.provider),
    schema: {
      tags: ['personas'],
      summary: 'Draft a persona from sample texts',
      description:
        "A provider reads the samples through its structured output and fills the catalogue's descriptive attributes, `vocabulary`, `avoid`, `signOff`, `examples` and `terms`, " +
        'each with a short quote from a sample as `evidence` (docs/rules-and-attributes.md, "Drafting a persona from samples"). ' +
        "The model's answer is checked against the catalogue: what does not fit is dropped and said in `warnings`, so the answer is a 200 whatever the model wrote, " +
        'and a body `POST /v1/personas` accepts as it is. Nothing is stored. ' +
        "Counts against the key's `refinesPerMinute` and `tokensPerDay` as a refine does (429 when spent); its calls and tokens count in `GET /v1/usage` as endpoint `drafted`. " +
        'A provider failure answers as a refine\'s does (502, 504, 429; 400 when the provider refuses the key); the `rules` provider has no model and is a 400.',
      security: [{ bearerAuth: [] }],
      body: DraftBody,
      response: { 200: { description: 'The draft', headers: DraftHeaders, ...PersonaDraftResponse }, ...commonErrors, ...providerErrors },
    },
    handler: async (request, reply) => {
      // A client that leaves stops the provider call.
      const disconnected = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) disconnected.abort();
      };
      reply.raw.once('close', onClose);
      try {
        const { draft, usage } = await drafter.draft(request.principal.accountId, request.body, disconnected.signal);
        reply.header('x-usage', usageHeader(usage));
        return draft;
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  });
};
