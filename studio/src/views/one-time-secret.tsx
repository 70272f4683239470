/** A secret the service shows in one answer only (a key's, a webhook's): copy it now, it is not shown again. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from './dialog.js';

interface OneTimeSecretProps {
  title: string;
  secret: string;
  testId: string;
  /** What the secret is for, and why it will not be shown again. */
  children: ComponentChildren;
  onDone(): void;
}

export function OneTimeSecret({ title, secret, testId, children, onDone }: OneTimeSecretProps) {
  const [copied, setCopied] = useState(false);
  return (
    <Dialog
      title={title}
      onCancel={onDone}
      actions={
        <>
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard.writeText(secret).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            Copy secret
          </button>
          <button type="button" class="secondary" autofocus onClick={onDone}>
            Done
          </button>
        </>
      }
    >
      {children}
      <p>
        <code class="secret" data-testid={testId}>
          {secret}
        </code>
      </p>
      <p role="status">{copied ? 'Copied.' : ''}</p>
    </Dialog>
  );
}
