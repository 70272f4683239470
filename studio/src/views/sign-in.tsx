/** Sign in with a service API key; it is checked by listing the account's personas. */
import { useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import { StudioApi } from '../api/client.js';
import type { Persona } from '../api/types.js';
import { plainError } from '../api/plain-errors.js';
import { describedBy } from '../fields/field-parts.js';
import { hasScope } from '../scopes.js';

interface SignInProps {
  /** Why the last session ended, if it did not end by choice. */
  reason: string | undefined;
  onSignedIn: (apiKey: string, personas: Persona[]) => void;
}

const HINT = 'Your persona-refine key (it starts with prk_). It stays in this browser tab until you sign out or close the tab.';

export function SignIn({ reason, onSignedIn }: SignInProps) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [checking, setChecking] = useState(false);

  const signIn = async () => {
    const candidate = key.trim();
    if (candidate === '') return setError('Type your API key.');
    setChecking(true);
    setError(undefined);
    try {
      const api = new StudioApi(candidate);
      // Which scopes the key has first, so a key without personas:read is not refused a list.
      const scopes = await api.currentKey().then((current) => current.scopes, () => undefined);
      const mayList = scopes === undefined || hasScope(scopes, 'personas:read');
      onSignedIn(candidate, mayList ? await api.listPersonas() : []);
    } catch (failure) {
      if (!(failure instanceof ApiError)) throw failure;
      const wrongKey = 'That API key was not accepted. Check that you copied all of it, and that it has not been revoked.';
      setError(failure.status === 401 ? wrongKey : plainError(failure));
    } finally {
      setChecking(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>Persona Studio</h1>
      <p>Write personas, try them on sample text, and compare how they rewrite it.</p>
      {reason && (
        <p role="status" class="notice">
          {reason}
        </p>
      )}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!checking) void signIn();
        }}
      >
        <div class="field">
          <label for="api-key">API key</label>
          <p id="api-key-hint" class="hint">
            {HINT}
          </p>
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            aria-describedby={describedBy('api-key', HINT, error)}
            aria-invalid={error ? 'true' : undefined}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
          {error && (
            <p id="api-key-error" role="alert" class="field-error">
              {error}
            </p>
          )}
        </div>
        <button type="submit" disabled={checking}>
          {checking ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
