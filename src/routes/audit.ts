/** GET /v1/audit: the account's change history. HTTP only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditTrail } from '../audit/audit-trail.js';
import { AuditEventList, ListAuditQuery } from '../schemas/audit.js';
import { commonErrors, NextPageHeader } from '../schemas/common.js';

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditTrail }> = async (app, { audit }) => {
  app.get('/audit', {
    config: { scope: 'audit:read' },
    schema: {
      tags: ['audit'],
      summary: 'The account\'s audit trail, newest first',
      description:
        'One event per change: persona created, updated, restored, deleted, label set, label removed. Each is written in ' +
        'the same transaction as its change. Pages of `limit` (default 100); a `Link: <…>; rel="next"` header points to the next page. ' +
        'A deleted persona\'s events stay.',
      security: [{ bearerAuth: [] }],
      querystring: ListAuditQuery,
      response: { 200: { description: 'The events', headers: NextPageHeader, ...AuditEventList }, ...commonErrors },
    },
    handler: async (request, reply) => {
      const page = await audit.list(request.principal.accountId, request.query);
      if (page.nextCursor !== undefined) {
        const params = new URLSearchParams();
        if (request.query.personaId !== undefined) params.set('personaId', request.query.personaId);
        params.set('limit', String(page.limit));
        params.set('cursor', page.nextCursor);
        reply.header('link', `</v1/audit?${params}>; rel="next"`);
      }
      return page.events;
    },
  });
};
