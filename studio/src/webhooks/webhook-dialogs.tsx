/** The Webhooks page's dialogs: a signing secret shown once, and the confirmations of rotate and delete. */
import type { Webhook } from '../api/webhooks.js';
import { Dialog } from '../views/dialog.js';
import { OneTimeSecret } from '../views/one-time-secret.js';

export function WebhookSecretOnce({ title, secret, onDone }: { title: string; secret: string; onDone(): void }) {
  return (
    <OneTimeSecret title={title} secret={secret} testId="webhook-secret" onDone={onDone}>
      <p>
        The receiver verifies each delivery's <code>webhook-signature</code> with this secret (Standard Webhooks).
      </p>
      <p class="warning">
        <strong>It will not be shown again.</strong> Copy it into the receiver's configuration now; if it is lost, rotate the secret.
      </p>
    </OneTimeSecret>
  );
}

export function ConfirmRotateSecret({ webhook, onRotate, onCancel }: { webhook: Webhook; onRotate(): void; onCancel(): void }) {
  return (
    <Dialog
      title="Rotate the signing secret?"
      onCancel={onCancel}
      actions={
        <>
          <button type="button" onClick={onRotate}>
            Rotate secret
          </button>
          <button type="button" class="secondary" autofocus onClick={onCancel}>
            Cancel
          </button>
        </>
      }
    >
      <p>
        <code>{webhook.url}</code> gets a new secret, shown once. For 24 hours every delivery is signed with both the old and the new secret, so the
        receiver can switch over without refusing an event.
      </p>
    </Dialog>
  );
}

export function ConfirmDeleteWebhook({ webhook, onDelete, onCancel }: { webhook: Webhook; onDelete(): void; onCancel(): void }) {
  return (
    <Dialog
      title="Delete this endpoint?"
      onCancel={onCancel}
      actions={
        <>
          <button type="button" class="danger" onClick={onDelete}>
            Delete endpoint
          </button>
          <button type="button" class="secondary" autofocus onClick={onCancel}>
            Cancel
          </button>
        </>
      }
    >
      <p>
        Nothing more is sent to <code>{webhook.url}</code>, and its pending deliveries are dropped. This cannot be undone.
      </p>
    </Dialog>
  );
}
