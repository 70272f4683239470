import { Type, type Static } from '@sinclair/typebox';
import type { DeliveryRecord, NewWebhook, WebhookChanges, WebhookRecord, WebhookWithSecret } from '../webhooks/webhook-service.js';
import { EVENT_SUBSCRIPTIONS } from '../webhooks/webhook-events.js';
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
