/** Persona versions and labels: HTTP only. Rules live in PersonaHistory. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../http/auth.js';
import type { LabelPolicies } from '../personas/label-policies.js';
import type { PersonaHistory, VersionRecord } from '../personas/persona-history.js';
import { type IdempotencyHooks, scopeRight } from '../http/idempotency.js';
import { commonErrors, ETagHeader, IdempotencyHeaders, idempotencyErrors, IfMatchHeaders, NextPageHeader, notFoundError, preconditionError } from '../schemas/common.js';
import { PersonaParams } from '../schemas/persona.js';
import { LabelPolicyMap } from '../schemas/label-policies.js';
import { LabelParams, ListVersionsQuery, PersonaLabels, type PersonaVersion, PersonaVersionList, SetLabelBody, VersionParams } from '../schemas/persona-history.js';
import { sendPersona } from './personas.js';

/** A version as its response schema serializes it; its stored attributes text parsed back (docs/http-contract.md, "Response bodies"). */
const versionBody = (record: VersionRecord): PersonaVersion => ({
  version: record.version,
  name: record.name,
  attributes: JSON.parse(record.attributesJson) as Record<string, unknown>,
  createdAt: record.createdAt,
  createdBy: record.createdBy,
});

const security = [{ bearerAuth: [] }];
const tags = ['versions'];

/** Restore and label removal are not idempotent by themselves (a second restore is a second version, a second removal a 404): a retry needs the key. */
const IdempotentIfMatchHeaders = Type.Composite([IfMatchHeaders, IdempotencyHeaders]);

export const personaHistoryRoutes: FastifyPluginAsyncTypebox<{ history: PersonaHistory; idempotency: IdempotencyHooks; policies: LabelPolicies }> = async (
  app,
  { history, idempotency, policies },
) => {
  app.get('/personas/:id/versions', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: 'List a persona\'s versions, oldest first',
      description:
        'Every create, update and restore recorded an immutable version. All versions unless `limit` or `cursor` is given; ' +
        'then a `Link: <…>; rel="next"` header points to the next page.',
      security,
      params: PersonaParams,
      querystring: ListVersionsQuery,
      response: { 200: { description: 'The versions', headers: NextPageHeader, ...PersonaVersionList }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const page = await history.listVersions(request.principal.accountId, id, request.query);
      if (page.nextCursor !== undefined) {
        reply.header('link', `</v1/personas/${encodeURIComponent(id)}/versions?limit=${page.limit}&cursor=${page.nextCursor}>; rel="next"`);
      }
      return page.versions.map(versionBody);
    },
  });

  app.get('/personas/:id/versions/:version', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: 'Get one version of a persona',
      security,
      params: VersionParams,
      response: { 200: { description: 'The version', ...Type.Ref('PersonaVersion') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => versionBody(await history.getVersion(request.principal.accountId, request.params.id, request.params.version)),
  });

  app.post('/personas/:id/versions/:version/restore', {
    config: { scope: 'personas:write' },
    ...idempotency,
    schema: {
      tags,
      summary: 'Make an earlier version the newest one',
      description:
        'Its name and attributes become a new version with the next number; history is never rewritten. ' +
        'Answers with the persona and its new ETag. `If-Match` is compared with the persona\'s current ETag.',
      security,
      params: VersionParams,
      headers: IdempotentIfMatchHeaders,
      response: { 200: { description: 'The persona as restored', headers: ETagHeader, ...Type.Ref('Persona') }, ...commonErrors, ...notFoundError, ...preconditionError, ...idempotencyErrors },
    },
    handler: async (request, reply) => {
      const { id, version } = request.params;
      return sendPersona(reply, await history.restore(actorOf(request), id, version, request.headers['if-match']));
    },
  });

  app.get('/personas/:id/labels', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: 'The persona\'s labels and the versions they point at',
      security,
      params: PersonaParams,
      response: { 200: { description: 'Label → version', ...PersonaLabels }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => history.labels(request.principal.accountId, request.params.id),
  });

  app.get('/personas/:id/label-policies', {
    config: { scope: 'personas:read' },
    schema: {
      tags,
      summary: 'Each label\'s policy',
      description:
        'The policy (protection and evaluation gates) of every label set, of every label that has a policy, and of `production`, ' +
        'keyed by label; each entry is what `GET …/labels/{label}/policy` answers for it.',
      security,
      params: PersonaParams,
      response: { 200: { description: 'Label → policy', ...LabelPolicyMap }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => {
      const labels = await history.labels(request.principal.accountId, request.params.id);
      return policies.forLabels(request.params.id, Object.keys(labels));
    },
  });

  app.put('/personas/:id/labels/:label', {
    config: { scope: 'labels:write' },
    schema: {
      tags,
      summary: 'Point a label at a version',
      description:
        'Creates the label or moves it; moving `production` back is a rollback. `latest` is implicit and cannot be set. ' +
        'A protected label (its policy; `production` by default) needs the scope `labels:protected` as well. ' +
        'A label whose policy sets `minScore`, `minPassRate` or `maxAgeDays` moves to a version only with a completed evaluation of that version ' +
        'meeting them, at most `maxAgeDays` old; otherwise 409 naming what is needed and what the latest evaluation scored. ' +
        '`If-Match` is compared with the persona\'s current ETag. Answers with all of the persona\'s labels.',
      security,
      params: LabelParams,
      headers: IfMatchHeaders,
      body: SetLabelBody,
      response: {
        200: { description: 'Label → version', ...PersonaLabels }, ...commonErrors, ...notFoundError, ...preconditionError,
        409: { description: 'The label\'s policy needs an evaluation of that version that meets it', ...Type.Ref('Error') },
      },
    },
    handler: async (request) => {
      const { id, label } = request.params;
      const { version } = request.body;
      const gate = policies.gate(label, { protectedRight: scopeRight(request, 'labels:protected'), toVersion: version });
      return history.setLabel(actorOf(request), id, label, version, request.headers['if-match'], gate);
    },
  });

  app.delete('/personas/:id/labels/:label', {
    config: { scope: 'labels:write' },
    ...idempotency,
    schema: {
      tags,
      summary: 'Remove a label',
      description: '`If-Match` is compared with the persona\'s current ETag. A protected label needs the scope `labels:protected` as well.',
      security,
      params: LabelParams,
      headers: IdempotentIfMatchHeaders,
      response: { 204: { description: 'Removed', type: 'null' }, ...commonErrors, ...notFoundError, ...preconditionError, ...idempotencyErrors },
    },
    handler: async (request, reply) => {
      const { id, label } = request.params;
      const gate = policies.gate(label, { protectedRight: scopeRight(request, 'labels:protected') });
      await history.removeLabel(actorOf(request), id, label, request.headers['if-match'], gate);
      return reply.code(204).send(null);
    },
  });
};
