/** /v1/keys: API keys managed over HTTP (scope `keys:admin`). HTTP only; rules live in KeyService. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { KeyService } from '../accounts/key-service.js';
import { actorOf } from '../http/auth.js';
import { commonErrors, notFoundError } from '../schemas/common.js';
import { ApiKeyList, CreateKeyBody, CurrentKey, KeyParams, RotateKeyBody } from '../schemas/keys.js';

const tags = ['keys'];
const conflictError = { 409: { description: 'The account\'s last key with keys:admin that does not expire cannot be deleted', ...Type.Ref('Error') } };
/** Answers that carry a secret are never cached by anything in between. */
const NO_STORE = 'no-store';

export const keyRoutes: FastifyPluginAsyncTypebox<{ keys: KeyService }> = async (app, { keys }) => {
  app.post('/keys', {
    config: { scope: 'keys:admin' },
    schema: {
      tags,
      summary: 'Create an API key for this account',
      description:
        'The answer is the only place the secret ever appears: it is stored as a SHA-256 hash. `scopes` may only name scopes ' +
        'the calling key has (a `*` key may grant anything). `limits` sets the key\'s budgets: `refinesPerMinute` and ' +
        '`tokensPerDay` (input + output tokens, UTC day), enforced across instances.',
      body: CreateKeyBody,
      response: { 201: { description: 'The key, with its secret (shown once)', ...Type.Ref('IssuedApiKey') }, ...commonErrors },
    },
    handler: async (request, reply) => {
      const issued = await keys.create(request.principal, actorOf(request), request.body);
      return reply.code(201).header('cache-control', NO_STORE).send(issued);
    },
  });

  app.get('/keys', {
    config: { scope: 'keys:admin' },
    schema: {
      tags,
      summary: 'The account\'s keys (never a secret or a hash), oldest first',
      description: 'Revoked keys are not listed; their events stay in the audit trail.',
      response: { 200: { description: 'The keys', ...ApiKeyList }, ...commonErrors },
    },
    handler: async (request) => keys.list(request.principal.accountId),
  });

  app.get('/keys/current', {
    config: { scope: 'any' },
    schema: {
      tags,
      summary: 'The key making this request: its id, scopes and limits',
      description: 'Any valid key may ask about itself (the studio uses it to disable what the key may not do).',
      response: { 200: { description: 'The calling key', ...CurrentKey }, ...commonErrors },
    },
    handler: async (request) => ({
      id: request.principal.keyId,
      scopes: [...request.principal.scopes],
      limits: { ...request.principal.limits },
    }),
  });

  app.get('/keys/:id', {
    config: { scope: 'keys:admin' },
    schema: {
      tags,
      summary: 'One of the account\'s keys (never its secret or hash)',
      params: KeyParams,
      response: { 200: { description: 'The key', ...Type.Ref('ApiKey') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => keys.get(request.principal.accountId, request.params.id),
  });

  app.delete('/keys/:id', {
    config: { scope: 'keys:admin' },
    schema: {
      tags,
      summary: 'Revoke a key',
      description:
        'Every instance refuses it within 5 s, and runs it started stop within 5 s. The account\'s last key with `keys:admin` that does ' +
        'not expire cannot be revoked (409), whatever expiring admin keys remain.',
      params: KeyParams,
      response: { 204: { description: 'Revoked', type: 'null' }, ...commonErrors, ...notFoundError, ...conflictError },
    },
    handler: async (request, reply) => {
      await keys.revoke(request.principal, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });

  app.post('/keys/:id/rotate', {
    config: { scope: 'keys:admin' },
    schema: {
      tags,
      summary: 'Give a key a new secret',
      description:
        'Same id, scopes, limits and budget; the answer carries the new secret (shown once). The old secret keeps working for ' +
        '`graceSeconds` (0–86400, default 0: refused within 5 s), then is refused everywhere. A second rotation replaces the first one\'s grace. ' +
        'Rotating a key with a scope the calling key lacks is refused (403).',
      params: KeyParams,
      body: Type.Optional(RotateKeyBody),
      response: { 200: { description: 'The key, with its new secret (shown once)', ...Type.Ref('IssuedApiKey') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const rotated = await keys.rotate(request.principal, actorOf(request), request.params.id, request.body?.graceSeconds);
      return reply.header('cache-control', NO_STORE).send(rotated);
    },
  });
};
