import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { DeliveryRecord, NewWebhook, WebhookChanges, WebhookRecord, WebhookWithSecret } from '../webhooks/webhook-service.js';
import { EVENT_SUBSCRIPTIONS, WEBHOOK_EVENT_TYPES, type WebhookEvent, type WebhookEventType } from '../webhooks/webhook-events.js';
import { DELIVERY_STATUSES } from '../webhooks/delivery-schedule.js';
import type { Assignable } from './common.js';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const EventSubscription = Type.Union(
  EVENT_SUBSCRIPTIONS.map((type) => Type.Literal(type)),
  { description: 'An event type (docs/webhooks.md, "Events"), or `*` for every type, those added later included' },
);

export const Webhook = Type.Object(
  {
    id: Type.String({ description: 'The endpoint id (`wh_…`)' }),
    url: Type.String({ description: 'Where events are POSTed' }),
    events: Type.Array(EventSubscription),
    description: nullable(Type.String(), 'What the endpoint is for; null when none was given'),
    createdAt: Type.String({ format: 'date-time' }),
    disabled: Type.Boolean({ description: 'true after five days of nothing but failed deliveries (or when set): nothing is sent until it is false again' }),
  },
  { $id: 'Webhook', additionalProperties: false },
);
export type Webhook = Static<typeof Webhook>;
export type WebhookRecordIsWebhook = Assignable<WebhookRecord, Webhook>;

export const WebhookWithSecretSchema = Type.Composite(
  [
    Webhook,
    Type.Object({
      secret: Type.String({ description: '`whsec_` + base64 of 24 random bytes: signs every delivery. Shown in this answer only (and on rotate-secret)' }),
    }),
  ],
  { $id: 'WebhookWithSecret', additionalProperties: false },
);
export type WebhookWithSecretSchema = Static<typeof WebhookWithSecretSchema>;
export type WebhookWithSecretIsTheSchema = Assignable<WebhookWithSecret, WebhookWithSecretSchema>;

export const WebhookList = Type.Array(Type.Ref('Webhook'));

const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'An `https` URL (`http` only for a host in WEBHOOK_ALLOWED_HOSTS); private, loopback and link-local addresses are refused unless the host is listed',
});
const Events = Type.Array(EventSubscription, { minItems: 1, maxItems: EVENT_SUBSCRIPTIONS.length, uniqueItems: true });
const Description = Type.String({ maxLength: 500 });

export const CreateWebhookBody = Type.Object(
  { url: WebhookUrl, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;
export type CreateWebhookBodyIsNewWebhook = Assignable<CreateWebhookBody, NewWebhook>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(Events),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    disabled: Type.Optional(Type.Boolean({ description: '`false` re-enables an endpoint disabled after failures' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;
export type UpdateWebhookBodyIsTheChanges = Assignable<UpdateWebhookBody, WebhookChanges>;

export const WebhookParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'The delivery id (one per event and endpoint)' }),
    eventId: Type.String({ description: 'The event\'s id: the `webhook-id` header, the same on every attempt' }),
    type: Type.String({ description: 'The event type' }),
    status: Type.Union(DELIVERY_STATUSES.map((status) => Type.Literal(status))),
    attempts: Type.Integer({ minimum: 0 }),
    lastStatusCode: nullable(Type.Integer(), 'The HTTP status of the last attempt; null before one, or when it got no answer'),
    lastError: nullable(Type.String(), 'Why the last attempt failed (a status, a timeout, a refused address); null after a success'),
    nextAttemptAt: nullable(Type.String({ format: 'date-time' }), 'When the next attempt is due; null once delivered or failed'),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;
export type DeliveryRecordIsWebhookDelivery = Assignable<DeliveryRecord, WebhookDelivery>;

export const DeliveryList = Type.Array(Type.Ref('WebhookDelivery'));

export const ListDeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size (default 100)' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Cursor from the previous page\'s Link header' })),
  },
  { additionalProperties: false },
);
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

const PersonaEventData = Type.Object({ id: Type.String(), name: Type.String(), version: Type.Integer() }, { additionalProperties: false });
const EvalEventFields = {
  personaId: Type.String(),
  evalId: Type.String(),
  version: Type.Integer(),
  summary: Type.Record(Type.String(), Type.Unknown(), { description: 'The run\'s summary, as GET …/evals/{evalId} has it' }),
};
const KeyEventData = Type.Object(
  { keyId: Type.String(), name: Type.String(), by: Type.String({ description: 'The key that created or revoked it' }) },
  { additionalProperties: false },
);
const EVENT_DATA = {
  'persona.created': PersonaEventData,
  'persona.updated': PersonaEventData,
  'persona.deleted': PersonaEventData,
  'label.moved': Type.Object(
    {
      personaId: Type.String(),
      label: Type.String(),
      fromVersion: nullable(Type.Integer(), 'Where the label pointed before; null when nowhere'),
      toVersion: Type.Integer(),
      evalId: Type.Optional(Type.String({ description: 'The evaluation a gated move was allowed by' })),
      keyId: Type.String({ description: 'The key that moved it' }),
    },
    { additionalProperties: false },
  ),
  'label.refused': Type.Object(
    { personaId: Type.String(), label: Type.String(), version: Type.Integer(), reason: Type.String({ description: 'The 409\'s message' }), keyId: Type.String() },
    { additionalProperties: false },
  ),
  'eval.completed': Type.Object(EvalEventFields, { additionalProperties: false }),
  'eval.failed': Type.Object(
    {
      ...EvalEventFields,
      status: Type.Union([Type.Literal('failed'), Type.Literal('interrupted')], { description: '`interrupted`: the instance running it stopped (what finished is kept)' }),
      error: nullable(Type.String(), 'Why it failed'),
    },
    { additionalProperties: false },
  ),
  'budget.threshold': Type.Object(
    {
      keyId: Type.String(),
      limit: Type.Literal('tokensPerDay'),
      budget: Type.Integer({ description: 'The limit\'s value: tokens per UTC day' }),
      percent: Type.Union([Type.Literal(80), Type.Literal(100)]),
      used: Type.Integer(),
      day: Type.String({ description: 'The UTC day (YYYY-MM-DD)' }),
    },
    { additionalProperties: false },
  ),
  'key.created': KeyEventData,
  'key.revoked': KeyEventData,
  'webhook.test': Type.Object({ webhookId: Type.String() }, { additionalProperties: false }),
} satisfies Record<WebhookEventType, TSchema>;

/**
 * Not a route's body: what a receiver gets, published so the SDK's types come from it. Its id
 * travels as the `webhook-id` header; `timestamp` is when the event happened.
 */
export const WebhookEventSchema = Type.Union(
  WEBHOOK_EVENT_TYPES.map((type) =>
    Type.Object({ type: Type.Literal(type), timestamp: Type.String({ format: 'date-time' }), data: EVENT_DATA[type] }, { additionalProperties: false }),
  ),
  { $id: 'WebhookEvent', description: 'A webhook delivery\'s body (docs/webhooks.md, "Events")' },
);
type EventBodies = { [T in WebhookEventType]: { type: T; timestamp: string; data: Static<(typeof EVENT_DATA)[T]> } }[WebhookEventType];
export type DomainEventsAreTheSchemas = Assignable<WebhookEvent & { timestamp: string }, EventBodies>;
