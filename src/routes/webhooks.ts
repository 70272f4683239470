/** /v1/webhooks: endpoints, their test events, secrets and deliveries (scope `webhooks:admin`). HTTP only; rules live in WebhookService. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { commonErrors, NextPageHeader, notFoundError } from '../schemas/common.js';
import { CreateWebhookBody, DeliveryList, ListDeliveriesQuery, UpdateWebhookBody, WebhookList, WebhookParams } from '../schemas/webhooks.js';
import type { WebhookService } from '../webhooks/webhook-service.js';

const tags = ['webhooks'];
const scope = 'webhooks:admin';
/** Answers that carry a secret are never cached by anything in between. */
const NO_STORE = 'no-store';
const conflict = (description: string) => ({ 409: { description, ...Type.Ref('Error') } });

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  app.post('/webhooks', {
    config: { scope },
    schema: {
      tags,
      summary: 'Add a webhook endpoint',
      description:
        'Events of the subscribed types are POSTed to `url`, signed as Standard Webhooks describes (docs/webhooks.md). The answer is ' +
        'the only place the signing secret appears (besides rotate-secret). `https` only, except hosts in WEBHOOK_ALLOWED_HOSTS; a ' +
        'URL whose host is or resolves to a loopback, private, link-local, multicast or unspecified address is refused (400). At most 20 per account (409).',
      body: CreateWebhookBody,
      response: { 201: { description: 'The endpoint, with its secret (shown once)', ...Type.Ref('WebhookWithSecret') }, ...commonErrors, ...conflict('The account has 20 endpoints already') },
    },
    handler: async (request, reply) => {
      const created = await webhooks.create(request.principal.accountId, request.body);
      return reply.code(201).header('cache-control', NO_STORE).send(created);
    },
  });

  app.get('/webhooks', {
    config: { scope },
    schema: { tags, summary: 'The account\'s webhook endpoints, oldest first (never a secret)', response: { 200: { description: 'The endpoints', ...WebhookList }, ...commonErrors } },
    handler: async (request) => webhooks.list(request.principal.accountId),
  });

  app.get('/webhooks/:id', {
    config: { scope },
    schema: {
      tags,
      summary: 'One webhook endpoint (never its secret)',
      params: WebhookParams,
      response: { 200: { description: 'The endpoint', ...Type.Ref('Webhook') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => webhooks.get(request.principal.accountId, request.params.id),
  });

  app.patch('/webhooks/:id', {
    config: { scope },
    schema: {
      tags,
      summary: 'Change an endpoint\'s url, events or description, or enable it again',
      description: '`{"disabled": false}` re-enables an endpoint disabled after five days of failed deliveries; deliveries that failed meanwhile are not sent again.',
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: { description: 'The endpoint', ...Type.Ref('Webhook') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request) => webhooks.update(request.principal.accountId, request.params.id, request.body),
  });

  app.delete('/webhooks/:id', {
    config: { scope },
    schema: {
      tags,
      summary: 'Remove an endpoint',
      description: 'Its deliveries go with it (pending ones are never sent); nothing more is sent to it.',
      params: WebhookParams,
      response: { 204: { description: 'Removed', type: 'null' }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      await webhooks.delete(request.principal.accountId, request.params.id);
      return reply.code(204).send(null);
    },
  });

  app.post('/webhooks/:id/test', {
    config: { scope },
    schema: {
      tags,
      summary: 'Send a webhook.test event to this endpoint',
      description: 'Sent whatever the endpoint subscribed to, signed and retried like any event; the answer is its delivery, pending.',
      params: WebhookParams,
      response: {
        202: { description: 'The delivery, pending', ...Type.Ref('WebhookDelivery') },
        ...commonErrors,
        ...notFoundError,
        ...conflict('The endpoint is disabled'),
      },
    },
    handler: async (request, reply) => reply.code(202).send(await webhooks.test(request.principal.accountId, request.params.id)),
  });

  app.post('/webhooks/:id/rotate-secret', {
    config: { scope },
    schema: {
      tags,
      summary: 'Give an endpoint a new signing secret',
      description: 'The answer carries the new secret (shown once). For 24 hours every delivery carries two signatures, the new secret\'s and the old one\'s, so receivers can switch without a gap.',
      params: WebhookParams,
      response: { 200: { description: 'The endpoint, with its new secret (shown once)', ...Type.Ref('WebhookWithSecret') }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => reply.header('cache-control', NO_STORE).send(await webhooks.rotateSecret(request.principal.accountId, request.params.id)),
  });

  app.get('/webhooks/:id/deliveries', {
    config: { scope },
    schema: {
      tags,
      summary: 'An endpoint\'s deliveries, newest first',
      description: 'One per event sent to it: its status, attempts and the last attempt\'s outcome. Kept 30 days. Pages of `limit` (default 100); a `Link: <…>; rel="next"` header points to the next page.',
      params: WebhookParams,
      querystring: ListDeliveriesQuery,
      response: { 200: { description: 'The deliveries', headers: NextPageHeader, ...DeliveryList }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) => {
      const page = await webhooks.deliveries(request.principal.accountId, request.params.id, request.query);
      if (page.nextCursor !== undefined) {
        const params = new URLSearchParams({ limit: String(page.limit), cursor: page.nextCursor });
        reply.header('link', `</v1/webhooks/${encodeURIComponent(request.params.id)}/deliveries?${params}>; rel="next"`);
      }
      return page.deliveries;
    },
  });
};
