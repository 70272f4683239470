/**
 * The account's webhook endpoints (oldest first, as the service lists them) and the form that
 * adds one; its signing secret is shown once, with a copy button. Each endpoint's own page
 * (webhook-view.tsx) edits, tests, rotates, deletes and lists its deliveries.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { Webhook, WebhookWithSecret } from '../api/webhooks.js';
import { useFocusOnMount } from '../hooks.js';
import { webhookHref } from '../routing.js';
import { useScopes } from '../scopes.js';
import { eventsText } from './events-field.js';
import { WebhookSecretOnce } from './webhook-dialogs.js';
import { WebhookForm, type WebhookFormValue } from './webhook-form.js';

const EMPTY: WebhookFormValue = { url: '', description: '', events: [] };

export function WebhooksView({ api }: { api: StudioApi }) {
  const lacking = useScopes().lacking('webhooks:admin');
  const [webhooks, setWebhooks] = useState<Webhook[] | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [created, setCreated] = useState<WebhookWithSecret | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading);

  const reload = () =>
    api.webhooks.list().then(setWebhooks, (error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      setProblem(plainError(error));
    });
  useEffect(() => {
    if (!lacking) void reload();
  }, [lacking]);

  return (
    <section aria-labelledby="webhooks-heading" class="webhooks">
      <h2 id="webhooks-heading" ref={heading} tabIndex={-1}>
        Webhooks
      </h2>
      <p class="hint">
        The service POSTs each event an endpoint subscribes to, signed with the endpoint's secret as Standard Webhooks describes, and retries
        until the endpoint answers 2xx. At most 20 endpoints.
      </p>
      {lacking ? (
        <p class="notice">{lacking} Ask someone with a key that has it to manage webhook endpoints.</p>
      ) : (
        <>
          {problem && (
            <p role="alert" class="error">
              {problem}
            </p>
          )}
          {webhooks === undefined ? (
            !problem && <p role="status">Loading…</p>
          ) : webhooks.length === 0 ? (
            <p class="notice">No endpoints yet: add one below.</p>
          ) : (
            <ul class="webhook-list" aria-label="Endpoints">
              {webhooks.map((webhook) => (
                <li key={webhook.id}>
                  <a href={webhookHref(webhook.id)} class="webhook-url">
                    {webhook.url}
                  </a>{' '}
                  {webhook.disabled && <span class="pill pill-disabled">disabled</span>}
                  {webhook.description && <p class="webhook-description">{webhook.description}</p>}
                  <p class="hint">
                    Events: <span class="webhook-events-text">{eventsText(webhook.events)}</span>
                  </p>
                </li>
              ))}
            </ul>
          )}
          <h3>Add an endpoint</h3>
          <WebhookForm
            initial={EMPTY}
            submitLabel="Add endpoint"
            clearOnSuccess
            onSubmit={async (value) => {
              const webhook = await api.webhooks.create({ url: value.url, events: value.events, ...(value.description ? { description: value.description } : {}) });
              setCreated(webhook);
              await reload();
            }}
          />
        </>
      )}
      {created && (
        <WebhookSecretOnce title="Endpoint added: copy its signing secret now" secret={created.secret} onDone={() => setCreated(undefined)} />
      )}
    </section>
  );
}
