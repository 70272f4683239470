/**
 * The events a webhook endpoint may subscribe to (docs/webhooks.md, "Events"), and what each
 * carries as `data`. Defined once: the HTTP schema, the outbox and the SDK's types read this list.
 */
export const WEBHOOK_EVENT_TYPES = [
  'persona.created',
  'persona.updated',
  'persona.deleted',
  'label.moved',
  'label.refused',
  'eval.completed',
  'eval.failed',
  'budget.threshold',
  'key.created',
  'key.revoked',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Subscribes to every type, those added later included. */
export const ALL_EVENTS = '*';
export type EventSubscription = WebhookEventType | typeof ALL_EVENTS;
export const EVENT_SUBSCRIPTIONS: readonly EventSubscription[] = [...WEBHOOK_EVENT_TYPES, ALL_EVENTS];

export interface PersonaEventData {
  id: string;
  name: string;
  version: number;
}

export interface LabelMovedData {
  personaId: string;
  label: string;
  /** Null when the label pointed nowhere before (or at the implicit latest). */
  fromVersion: number | null;
  toVersion: number;
  /** The evaluation a gated label move was allowed by. */
  evalId?: string;
  /** The key that moved it. */
  keyId: string;
}

export interface LabelRefusedData {
  personaId: string;
  label: string;
  version: number;
  /** The 409's message. */
  reason: string;
  keyId: string;
}

export interface EvalEventData {
  personaId: string;
  evalId: string;
  version: number;
  summary: Record<string, unknown>;
}

export interface EvalFailedData extends EvalEventData {
  /** `interrupted`: the instance running it stopped (what finished is kept). */
  status: 'failed' | 'interrupted';
  error: string | null;
}

export interface BudgetThresholdData {
  keyId: string;
  limit: 'tokensPerDay';
  /** The limit's value: tokens per UTC day. */
  budget: number;
  percent: 80 | 100;
  used: number;
  /** The UTC day (YYYY-MM-DD) the budget is for. */
  day: string;
}

export interface KeyEventData {
  keyId: string;
  name: string;
  /** The key that created or revoked it. */
  by: string;
}

export interface WebhookTestData {
  webhookId: string;
}

export interface WebhookEventData {
  'persona.created': PersonaEventData;
  'persona.updated': PersonaEventData;
  'persona.deleted': PersonaEventData;
  'label.moved': LabelMovedData;
  'label.refused': LabelRefusedData;
  'eval.completed': EvalEventData;
  'eval.failed': EvalFailedData;
  'budget.threshold': BudgetThresholdData;
  'key.created': KeyEventData;
  'key.revoked': KeyEventData;
  'webhook.test': WebhookTestData;
}

/** One event as the outbox stores it and the endpoint receives it (minus `id`, which travels as `webhook-id`). */
export type WebhookEvent = { [T in WebhookEventType]: { type: T; data: WebhookEventData[T] } }[WebhookEventType];

export function subscribes(events: readonly string[], type: WebhookEventType): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}
