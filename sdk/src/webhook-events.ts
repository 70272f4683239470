/**
 * What each webhook event carries as `data`. The OpenAPI document lists the event types but not
 * their payloads (they travel to receivers, not through the API), so these are written here;
 * sdk/test/webhooks.test.ts fails when they and the server's disagree.
 */
import type { WebhookEventType } from './types.js';

/** `persona.created`, `persona.updated`, `persona.deleted`. */
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

/** `eval.completed`. */
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

/** `key.created`, `key.revoked`. */
export interface KeyEventData {
  keyId: string;
  name: string;
  /** The key that created or revoked it. */
  by: string;
}

export interface WebhookTestData {
  webhookId: string;
}

/** Event type → its `data`. */
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

/** Each type once: a type missing from, or not in, the OpenAPI document's list fails to type-check. */
const EVENT_TYPES: Record<WebhookEventType, true> = {
  'persona.created': true,
  'persona.updated': true,
  'persona.deleted': true,
  'label.moved': true,
  'label.refused': true,
  'eval.completed': true,
  'eval.failed': true,
  'budget.threshold': true,
  'key.created': true,
  'key.revoked': true,
  'webhook.test': true,
};

/** Every event type this SDK knows, for a picker or a check; subscribe to `*` for those added later too. */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = Object.freeze(Object.keys(EVENT_TYPES) as WebhookEventType[]);

/**
 * An event as a receiver gets it: switch on `type` and `data` has that type's shape. `timestamp`
 * is when the event happened (ISO 8601); its id travels as the `webhook-id` header.
 */
export type WebhookEvent = { [T in WebhookEventType]: { type: T; timestamp: string; data: WebhookEventData[T] } }[WebhookEventType];
