/**
 * What each webhook event carries as `data`, from the OpenAPI document's `WebhookEvent` (the
 * body a receiver gets, published there for this SDK): switch on `type` and `data` has that
 * type's shape.
 */
import type { components } from './generated/openapi.js';
import type { WebhookEventType } from './types.js';

/**
 * An event as a receiver gets it. `timestamp` is when the event happened (ISO 8601); its id
 * travels as the `webhook-id` header.
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** Event type → its `data`. */
export type WebhookEventData = { [T in WebhookEventType]: Extract<WebhookEvent, { type: T }>['data'] };

/** `persona.created`, `persona.updated`, `persona.deleted`. */
export type PersonaEventData = WebhookEventData['persona.created'];
export type LabelMovedData = WebhookEventData['label.moved'];
export type LabelRefusedData = WebhookEventData['label.refused'];
/** `eval.completed`. */
export type EvalEventData = WebhookEventData['eval.completed'];
export type EvalFailedData = WebhookEventData['eval.failed'];
export type BudgetThresholdData = WebhookEventData['budget.threshold'];
/** `key.created`, `key.revoked`. */
export type KeyEventData = WebhookEventData['key.created'];
export type WebhookTestData = WebhookEventData['webhook.test'];

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
