/** The Webhooks page's dialogs: a signing secret shown once, and the confirmations of rotate and delete. */
import type { Webhook } from '../api/webhooks.js';
import { ConfirmDialog } from '../views/dialog.js';
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
    <ConfirmDialog title="Rotate the signing secret?" confirm="Rotate secret" onConfirm={onRotate} onCancel={onCancel}>
      <p>
        <code>{webhook.url}</code> gets a new secret, shown once. For 24 hours every delivery is signed with both the old and the new secret, so the
        receiver can switch over without refusing an event.
      </p>
    </ConfirmDialog>
  );
}

export function ConfirmDeleteWebhook({ webhook, onDelete, onCancel }: { webhook: Webhook; onDelete(): void; onCancel(): void }) {
  return (
    <ConfirmDialog title="Delete this endpoint?" confirm="Delete endpoint" danger onConfirm={onDelete} onCancel={onCancel}>
      <p>
        Nothing more is sent to <code>{webhook.url}</code>, and its pending deliveries are dropped. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
