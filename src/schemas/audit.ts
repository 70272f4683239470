import { Type, type Static } from '@sinclair/typebox';
import type { AuditEvent as DomainAuditEvent } from '../audit/audit-trail.js';
import type { Assignable } from './common.js';

const nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const AuditEvent = Type.Object(
  {
    id: Type.String({ description: 'Time-ordered event id; also the paging cursor' }),
    at: Type.String({ format: 'date-time', description: 'When the change was committed' }),
    action: Type.Union(
      [
        'persona.created', 'persona.updated', 'persona.restored', 'persona.deleted', 'label.set', 'label.removed',
        'label.policy.set', 'label.policy.removed', 'key.created', 'key.revoked', 'key.rotated', 'key.expired', 'budget.exceeded',
      ].map((a) => Type.Literal(a)),
      { description: 'What changed' },
    ),
    personaId: Type.Union([Type.String(), Type.Null()], { description: 'The persona; null for key and budget events' }),
    version: nullable(Type.Integer(), 'The version made (created, updated, restored), the last one (deleted), or the one the label points (pointed) at'),
    fromVersion: nullable(Type.Integer(), 'restored: the version copied; label.set: where the label pointed before (null if new)'),
    label: nullable(Type.String(), 'The label, for label events'),
    actor: nullable(Type.String(), 'Id of the API key that made the change (never the key)'),
    requestId: nullable(Type.String(), 'X-Request-Id of the request that made the change'),
    keyId: Type.Optional(nullable(Type.String(), 'key.* and budget.exceeded: the key the event is about (its id, never its secret)')),
    detail: Type.Optional(
      nullable(Type.String(), 'budget.exceeded: the limit (`tokensPerDay` or `refinesPerMinute`); key.rotated: `graceSeconds=N`; label.set of a gated label: `evalId=<id>`, the evaluation that met its policy'),
    ),
  },
  { $id: 'AuditEvent', additionalProperties: false },
);
export type AuditEvent = Static<typeof AuditEvent>;
export type AuditEventIsTheDomains = Assignable<DomainAuditEvent, AuditEvent>;

export const AuditEventList = Type.Array(Type.Ref('AuditEvent'));

export const ListAuditQuery = Type.Object(
  {
    personaId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this persona\'s events (also after it was deleted)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size (default 100)' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Cursor from the previous page\'s Link header' })),
  },
  { additionalProperties: false },
);
export type ListAuditQuery = Static<typeof ListAuditQuery>;
