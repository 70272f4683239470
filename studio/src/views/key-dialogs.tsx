/** The Keys page's dialogs: a new secret shown once, and the confirmations of rotate and revoke. */
import { useState } from 'preact/hooks';
import type { ApiKey, IssuedApiKey } from '../api/types.js';
import { ConfirmDialog, Dialog } from './dialog.js';
import { OneTimeSecret } from './one-time-secret.js';

/** The service's largest grace (24 h), also the default: a rotation should not cut off a deployed app before it is updated. */
const MAX_GRACE_HOURS = 24;

/** Rotate: how long the old secret keeps working, then a confirmation. */
export function ConfirmRotate({ apiKey, onRotate, onCancel }: { apiKey: ApiKey; onRotate(graceSeconds: number): void; onCancel(): void }) {
  const [hours, setHours] = useState(String(MAX_GRACE_HOURS));
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const name = apiKey.name || apiKey.id;
  const rotate = () => {
    const grace = Number(hours);
    if (hours.trim() === '' || !Number.isFinite(grace) || grace < 0 || grace > MAX_GRACE_HOURS) {
      return setProblem(`The old secret can keep working for 0 to ${MAX_GRACE_HOURS} hours.`);
    }
    onRotate(Math.round(grace * 3600));
  };
  return (
    <Dialog
      title={`Rotate ${name}?`}
      onCancel={onCancel}
      actions={
        <>
          <button type="button" onClick={rotate}>
            Rotate {name}
          </button>
          <button type="button" class="secondary" autofocus onClick={onCancel}>
            Cancel
          </button>
        </>
      }
    >
      <p>The key gets a new secret, shown once. Apps still using the old secret keep working until the grace period ends, then get 401 errors.</p>
      <div class="field">
        <label for="rotate-grace">The old secret keeps working for (hours, 0–{MAX_GRACE_HOURS})</label>
        <input id="rotate-grace" type="number" min="0" max={MAX_GRACE_HOURS} step="any" value={hours} onInput={(event) => setHours(event.currentTarget.value)} />
      </div>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
    </Dialog>
  );
}

export function ConfirmRevoke({ apiKey, onRevoke, onCancel }: { apiKey: ApiKey; onRevoke(): void; onCancel(): void }) {
  const name = apiKey.name || apiKey.id;
  return (
    <ConfirmDialog title={`Revoke ${name}?`} confirm={`Revoke ${name}`} danger onConfirm={onRevoke} onCancel={onCancel}>
      <p>This cannot be undone. Within 5 seconds every request with this key gets a 401 error.</p>
    </ConfirmDialog>
  );
}

/** Shown once: the studio keeps no copy. */
export function SecretOnce({ issued, what, onDone }: { issued: IssuedApiKey; what: string; onDone(): void }) {
  return (
    <OneTimeSecret title={`${what}: copy the secret now`} secret={issued.secret} testId="key-secret" onDone={onDone}>
      <p>
        This is the only time the secret of <strong>{issued.name}</strong> is shown; the service keeps only its hash.
      </p>
    </OneTimeSecret>
  );
}
