/**
 * The event types an endpoint subscribes to, as checkboxes: each type the service sends, or all
 * of them (`*`), which also covers types added later.
 */
import { useId } from 'preact/hooks';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../src/webhooks/webhook-events.js';
import type { WebhookSubscription } from '../api/webhooks.js';

// Keyed by the service's own list (pure, no imports; the studio bundles it): a type it adds fails the type check here until described.
const EVENT_HINTS: Record<WebhookEventType, string> = {
  'persona.created': 'a persona is created',
  'persona.updated': 'a persona gets a new version (saved or restored)',
  'persona.deleted': 'a persona is deleted',
  'label.moved': 'a label moves to another version',
  'label.refused': 'a label move is refused by its gate',
  'eval.completed': 'an evaluation finishes',
  'eval.failed': 'an evaluation fails or is interrupted',
  'budget.threshold': 'a key has used 80 % or 100 % of its tokens for the day',
  'key.created': 'an API key is created',
  'key.revoked': 'an API key is revoked',
  'webhook.test': 'sent by “Send test event” (which reaches the endpoint whether or not it is chosen)',
};

const ALL_EVENTS_LABEL = 'All events (*)';

/** A subscription in words: `*` said, the types as the service names them. */
export const eventsText = (events: readonly string[]) => (events.includes(ALL_EVENTS) ? ALL_EVENTS_LABEL : events.join(', '));

/** Sorted as the service lists the types, `*` alone when chosen. */
export function normalizedEvents(chosen: readonly WebhookSubscription[]): WebhookSubscription[] {
  if (chosen.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return WEBHOOK_EVENT_TYPES.filter((type) => chosen.includes(type));
}

interface EventsFieldProps {
  value: readonly WebhookSubscription[];
  onChange(value: WebhookSubscription[]): void;
  invalid?: boolean;
  /** The id of the message saying why the choice is refused. */
  errorId?: string;
}

export function EventsField({ value, onChange, invalid, errorId }: EventsFieldProps) {
  const prefix = useId();
  const all = value.includes(ALL_EVENTS);
  const toggle = (type: WebhookSubscription, checked: boolean) => onChange(checked ? [...value, type] : value.filter((item) => item !== type));
  return (
    <fieldset class="group webhook-events" aria-describedby={invalid ? errorId : undefined}>
      <legend>Events</legend>
      <div class="field checkbox wide">
        <input id={`${prefix}-all`} type="checkbox" checked={all} onChange={(event) => toggle(ALL_EVENTS, event.currentTarget.checked)} />
        <label for={`${prefix}-all`}>
          {ALL_EVENTS_LABEL}: <span class="hint">every type below, and any added later</span>
        </label>
      </div>
      {WEBHOOK_EVENT_TYPES.map((type) => (
        <div class="field checkbox" key={type}>
          {/* Under `*` every type is sent: shown ticked and fixed until `*` is cleared (the choice underneath is kept). */}
          <input
            id={`${prefix}-${type}`}
            type="checkbox"
            disabled={all}
            checked={all || value.includes(type)}
            onChange={(event) => toggle(type, event.currentTarget.checked)}
          />
          <label for={`${prefix}-${type}`}>
            <code>{type}</code>: {EVENT_HINTS[type]}
          </label>
        </div>
      ))}
    </fieldset>
  );
}
