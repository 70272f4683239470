/** POST /v1/check: lint text against a persona's rules, and with a judge rate its voice. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { PersonaCheck } from '../refine/persona-check.js';
import { PersonaVersionHeader } from '../schemas/persona-history.js';
import { commonErrors, notFoundError } from '../schemas/common.js';
import { CheckBody, CheckResponse } from '../schemas/refine.js';
import { BUDGET_HEADER, type Metering } from '../usage/metering.js';
import { estimatedJudgeTokens } from '../usage/token-estimate.js';
import { usageHeader } from '../usage/usage-tally.js';

const CheckHeaders = {
  ...PersonaVersionHeader,
  'X-Usage': Type.Optional(Type.String({ description: "A judged check: the judge's calls and tokens, `input_tokens=…, output_tokens=…, provider_calls=…`" })),
};

export interface CheckRouteOptions {
  checker: PersonaCheck;
  /** A judged check spends tokens: it is admitted against the key's budgets as a refine is (docs/voice-score.md, "The judge"). */
  metering: Metering;
}

export const checkRoutes: FastifyPluginAsyncTypebox<CheckRouteOptions> = async (app, { checker, metering }) => {
  app.post('/check', {
    config: { scope: 'refine' },
    schema: {
      tags: ['refine'],
      summary: "Check text against a persona's rules, and with a judge its voice",
      description:
        "Reports every violation of the persona's rules (the attributes that configure one say so) with its offsets in `content`, " +
        'and any well-known attribute the rules and the prompt ignore because of its shape. ' +
        'With `original` (the text `content` was rewritten from), also reports as `preserve` every number, URL, e-mail address, code span or block and template placeholder of `original` ' +
        'that `content` lost, with its offsets in `original`, unless the persona turns `preserve` off. Changes nothing. ' +
        'With `judge`, a provider rates `content` against the persona\'s descriptive attributes (`judge.ratings`, `scores.voice`); the answer then carries `X-Usage`, ' +
        'and the judge\'s calls count in `GET /v1/usage`. A judge that fails leaves the check a 200 with the deterministic score and `judge.error`. ' +
        "A judged check counts against the key's `refinesPerMinute` and `tokensPerDay` as a refine does (429 when spent; `X-Budget-Tokens-Remaining` when the key has a token budget); a check without a judge spends nothing and counts against neither. " +
        '`personaVersion` or `personaLabel` pins the persona version checked against (not both); the answer carries `X-Persona-Version`. ' +
        '`variant` names one of that version\'s `variants`, merged over its attributes, its own `locale` included; the answer then carries `X-Persona-Variant`.',
      security: [{ bearerAuth: [] }],
      body: CheckBody,
      response: { 200: { description: 'The verdict', headers: CheckHeaders, ...CheckResponse }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      // A client that leaves stops the judge's provider call.
      const disconnected = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) disconnected.abort();
      };
      reply.raw.once('close', onClose);
      const { accountId, keyId } = request.principal;
      const check = () => checker.check(accountId, request.body, disconnected.signal);
      try {
        // A judge spends tokens: metered as a refine is. Without one the check's usage is still the key's.
        const { value, remaining } = request.body.judge
          ? await metering.run({ ...request.principal, requestId: request.id }, estimatedJudgeTokens(request.body.content), check, true)
          : { value: await metering.unmetered(keyId).within(check, undefined, request.id), remaining: undefined };
        reply.header('x-persona-version', String(value.personaVersion));
        if (value.personaVariant !== undefined) reply.header('x-persona-variant', value.personaVariant);
        if (value.usage) reply.header('x-usage', usageHeader(value.usage));
        if (remaining !== undefined) reply.header(BUDGET_HEADER, String(Math.max(0, remaining)));
        return value.verdict;
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  });
};
