/**
 * An endpoint's URL, description and events: the form that adds one, and the one that edits it.
 * A refusal (a URL the service will not send to, say) is the service's own 400 message, shown
 * beside the field it is about.
 */
import { useId, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import { plainError } from '../api/plain-errors.js';
import type { WebhookSubscription } from '../api/webhooks.js';
import { EventsField, normalizedEvents } from './events-field.js';

export interface WebhookFormValue {
  url: string;
  description: string;
  events: WebhookSubscription[];
}

type Field = 'url' | 'events' | 'general';

/** The service's messages start with what they are about (`url must use https…`, `address 10.1.2.3 is…`). */
const fieldOf = (message: string): Field => (/^(url|host|address)\b/.test(message) ? 'url' : /^events\b|event type/.test(message) ? 'events' : 'general');

interface WebhookFormProps {
  initial: WebhookFormValue;
  submitLabel: string;
  /** Starts empty again after a success (the add form; the edit form keeps what was saved). */
  clearOnSuccess?: boolean;
  /** Resolves when saved; an ApiError it throws is shown. */
  onSubmit(value: WebhookFormValue): Promise<void>;
}

export function WebhookForm({ initial, submitLabel, clearOnSuccess, onSubmit }: WebhookFormProps) {
  const id = useId();
  const [value, setValue] = useState(initial);
  const [problem, setProblem] = useState<{ field: Field; message: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const errorId = `${id}-error`;
  const invalid = (field: Field) => problem?.field === field;

  const submit = async () => {
    if (busy) return;
    const url = value.url.trim();
    if (url === '') return setProblem({ field: 'url', message: 'Enter the URL events are sent to.' });
    if (value.events.length === 0) return setProblem({ field: 'events', message: 'Choose at least one event, or all events.' });
    setBusy(true);
    setProblem(undefined);
    try {
      await onSubmit({ url, description: value.description.trim(), events: normalizedEvents(value.events) });
      if (clearOnSuccess) setValue(initial);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setProblem({ field: error.status === 400 ? fieldOf(error.message) : 'general', message: plainError(error).replace(/^Url\b/, 'URL') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      noValidate
      class="webhook-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div class="field">
        <label for={`${id}-url`}>URL</label>
        <p class="hint" id={`${id}-url-hint`}>
          An <code>https</code> address that answers 2xx within 10 seconds. Internal addresses are refused unless the operator allows their host.
        </p>
        <input
          id={`${id}-url`}
          inputMode="url"
          autoComplete="off"
          spellcheck={false}
          value={value.url}
          placeholder="https://…/webhooks"
          aria-invalid={invalid('url') ? 'true' : undefined}
          aria-describedby={invalid('url') ? `${id}-url-hint ${errorId}` : `${id}-url-hint`}
          onInput={(event) => setValue({ ...value, url: event.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for={`${id}-description`}>Description (optional)</label>
        <input
          id={`${id}-description`}
          value={value.description}
          maxLength={500}
          placeholder="chat-ops channel"
          onInput={(event) => setValue({ ...value, description: event.currentTarget.value })}
        />
      </div>
      <EventsField value={value.events} onChange={(events) => setValue({ ...value, events })} invalid={invalid('events')} errorId={errorId} />
      {problem && (
        <p role="alert" class="error" id={errorId}>
          {problem.message}
        </p>
      )}
      {/* Enabled while saving: a disabled button would drop keyboard focus, and the dialog that follows an add returns it here. */}
      <button type="submit">
        {submitLabel}
      </button>
    </form>
  );
}
