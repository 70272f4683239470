/**
 * One webhook endpoint: send it a test event and watch the delivery, rotate its signing secret
 * (the new one shown once), enable it again after it was disabled, delete it, edit its URL,
 * description and events, and read its deliveries.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { Webhook, WebhookWithSecret } from '../api/webhooks.js';
import { useFocusOnMount } from '../hooks.js';
import { WEBHOOKS_HREF, navigate } from '../routing.js';
import { useScopes } from '../scopes.js';
import { Deliveries } from './deliveries.js';
import { eventsText } from './events-field.js';
import { ConfirmDeleteWebhook, ConfirmRotateSecret, WebhookSecretOnce } from './webhook-dialogs.js';
import { WebhookForm } from './webhook-form.js';
import { StatusLines } from '../views/status-lines.js';

interface WebhookViewProps {
  api: StudioApi;
  id: string;
  /** A sentence for the workspace to show after this view is gone (the endpoint deleted). */
  onNotice(notice: string): void;
}

export function WebhookView({ api, id, onNotice }: WebhookViewProps) {
  const lacking = useScopes().lacking('webhooks:admin');
  const [webhook, setWebhook] = useState<Webhook | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<'rotate' | 'delete' | undefined>(undefined);
  const [rotated, setRotated] = useState<WebhookWithSecret | undefined>(undefined);
  // Bumped when this page queues a delivery, so the deliveries are read again.
  const [generation, setGeneration] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading, webhook !== undefined);

  const failed = (error: unknown) => {
    if (!(error instanceof ApiError)) throw error;
    setProblem(plainError(error));
  };
  useEffect(() => {
    if (lacking) return;
    api.webhooks.get(id).then(setWebhook, (error: unknown) => {
      if (error instanceof ApiError && error.status === 404) setProblem('There is no such webhook endpoint; someone may have deleted it.');
      else failed(error);
    });
  }, [id, lacking]);

  // The buttons stay enabled while a request runs (a disabled button drops keyboard focus); a second press waits for the first.
  const act = async (work: () => Promise<string>) => {
    if (busy) return;
    setBusy(true);
    setProblem(undefined);
    setStatus(undefined);
    try {
      setStatus(await work());
    } catch (error) {
      failed(error);
    } finally {
      setBusy(false);
    }
  };

  if (lacking) return <p class="notice">{lacking} Ask someone with a key that has it to manage webhook endpoints.</p>;
  if (!webhook) {
    return problem ? (
      <>
        <p role="alert" class="error">
          {problem}
        </p>
        <p>
          <a href={WEBHOOKS_HREF}>All webhooks</a>
        </p>
      </>
    ) : (
      <p role="status">Loading…</p>
    );
  }

  return (
    <section aria-labelledby="webhook-heading" class="webhook">
      <p>
        <a href={WEBHOOKS_HREF}>All webhooks</a>
      </p>
      <h2 id="webhook-heading" ref={heading} tabIndex={-1}>
        Webhook endpoint
      </h2>
      <dl class="webhook-facts">
        <div>
          <dt>URL</dt>
          <dd>
            <code>{webhook.url}</code>
          </dd>
        </div>
        {webhook.description && (
          <div>
            <dt>Description</dt>
            <dd>{webhook.description}</dd>
          </div>
        )}
        <div>
          <dt>Events</dt>
          <dd>{eventsText(webhook.events)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{webhook.disabled ? <span class="pill pill-disabled">disabled</span> : <span class="pill pill-enabled">enabled</span>}</dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd>
            <code>{webhook.id}</code>
          </dd>
        </div>
      </dl>
      {webhook.disabled && (
        <p class="notice" id="webhook-disabled-why">
          Nothing is sent to this endpoint while it is disabled: after five days of nothing but failed deliveries, or when someone disabled it. Enable
          it once the receiver answers again.
        </p>
      )}
      <StatusLines status={status} problem={problem} />
      <div class="actions">
        <button
          type="button"
          disabled={webhook.disabled}
          aria-describedby={webhook.disabled ? 'webhook-disabled-why' : undefined}
          onClick={() =>
            void act(async () => {
              await api.webhooks.test(id);
              setGeneration((count) => count + 1);
              return 'Test event queued: its delivery is listed below.';
            })
          }
        >
          Send test event
        </button>
        <button
          type="button"
          class="secondary"
         
          onClick={() =>
            void act(async () => {
              const updated = await api.webhooks.update(id, { disabled: !webhook.disabled });
              setWebhook(updated);
              return updated.disabled ? 'Disabled: nothing is sent until it is enabled again.' : 'Enabled: new events are sent again.';
            })
          }
        >
          {webhook.disabled ? 'Enable' : 'Disable'}
        </button>
        <button type="button" class="secondary" onClick={() => setConfirming('rotate')}>
          Rotate secret
        </button>
        <button type="button" class="danger" onClick={() => setConfirming('delete')}>
          Delete
        </button>
      </div>

      <Deliveries api={api} webhookId={id} generation={generation} />

      <section aria-labelledby="webhook-settings-heading" class="webhook-settings">
        <h3 id="webhook-settings-heading">Settings</h3>
        <WebhookForm
          initial={{ url: webhook.url, description: webhook.description ?? '', events: webhook.events }}
          submitLabel="Save changes"
          onSubmit={async (value) => {
            setStatus(undefined);
            const updated = await api.webhooks.update(id, { url: value.url, events: value.events, description: value.description === '' ? null : value.description });
            setWebhook(updated);
            setStatus('Changes saved.');
          }}
        />
      </section>

      {confirming === 'rotate' && (
        <ConfirmRotateSecret
          webhook={webhook}
          onCancel={() => setConfirming(undefined)}
          onRotate={() => {
            setConfirming(undefined);
            void act(async () => {
              setRotated(await api.webhooks.rotateSecret(id));
              return 'The secret is rotated; the old one also signs deliveries for 24 hours.';
            });
          }}
        />
      )}
      {confirming === 'delete' && (
        <ConfirmDeleteWebhook
          webhook={webhook}
          onCancel={() => setConfirming(undefined)}
          onDelete={() => {
            setConfirming(undefined);
            void act(async () => {
              await api.webhooks.remove(id);
              onNotice(`The endpoint ${webhook.url} is deleted.`);
              navigate(WEBHOOKS_HREF);
              return '';
            });
          }}
        />
      )}
      {rotated && <WebhookSecretOnce title="Secret rotated: copy the new secret now" secret={rotated.secret} onDone={() => setRotated(undefined)} />}
    </section>
  );
}
