/** Label policies: PUT/GET/DELETE /v1/personas/{id}/labels/{label}/policy. HTTP only; rules live in LabelPolicies. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../http/auth.js';
import type { LabelPolicies } from '../personas/label-policies.js';
import { commonErrors, notFoundError } from '../schemas/common.js';
import { LabelPolicyBody } from '../schemas/label-policies.js';
import { LabelParams } from '../schemas/persona-history.js';

const tags = ['versions'];
const policyRef = { description: 'The label\'s policy', ...Type.Ref('LabelPolicy') };

export const labelPolicyRoutes: FastifyPluginAsyncTypebox<{ policies: LabelPolicies }> = async (app, { policies }) => {
  app.get('/personas/:id/labels/:label/policy', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: 'A label\'s policy',
      description: 'Without a policy set, the default: `production` protected, other labels not (`isDefault: true`).',
      params: LabelParams,
      response: { 200: policyRef, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => policies.get(request.principal.accountId, request.params.id, request.params.label),
  });

  app.put('/personas/:id/labels/:label/policy', {
    config: { scope: 'labels:protected' },
    schema: {
      tags,
      summary: 'Set a label\'s policy',
      description:
        '`"protected": true`: moving or removing the label then needs the scope `labels:protected`. The label need not exist yet. ' +
        '`minScore`, `minPassRate` and `maxAgeDays` gate every move of the label: a move to version v needs a completed evaluation of v ' +
        'meeting them (`POST /v1/personas/{id}/evals`), else 409. ' +
        'Replaces the whole policy; `protected` left out keeps the label\'s current protection.',
      params: LabelParams,
      body: LabelPolicyBody,
      response: { 200: policyRef, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => policies.put(actorOf(request), request.params.id, request.params.label, request.body),
  });

  app.delete('/personas/:id/labels/:label/policy', {
    config: { scope: 'labels:protected' },
    schema: {
      tags,
      summary: 'Remove a label\'s policy',
      description: 'The label is back to the default: `production` protected, other labels not. 404 when it had no policy.',
      params: LabelParams,
      response: { 204: { description: 'Removed', type: 'null' }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      await policies.remove(actorOf(request), request.params.id, request.params.label);
      return reply.code(204).send(null);
    },
  });
};
