/**
 * The account's API keys, newest first: create one with scopes and limits (its secret shown once,
 * with a copy button), rotate after choosing how long the old secret keeps working (a new secret
 * shown once), revoke after a confirmation. A key without `keys:admin` sees why instead of a
 * failing request.
 */
import { useEffect, useState } from 'preact/hooks';
import { asSentence } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import type { ApiKey, CreateKeyInput, IssuedApiKey } from '../api/types.js';
import { SCOPE_NAMES, firstMissing, useScopes } from '../scopes.js';
import { ConfirmRevoke, ConfirmRotate, SecretOnce } from './key-dialogs.js';

const SCOPE_HINTS: Record<string, string> = {
  'personas:read': 'read personas, versions, labels',
  'personas:write': 'create, edit, delete, restore personas',
  'labels:write': 'move and remove labels',
  'labels:protected': 'move protected labels (production)',
  refine: 'refine and check text',
  evals: 'run evaluations',
  'usage:read': 'read usage',
  'audit:read': 'read the audit trail',
  'keys:admin': 'manage keys',
  'webhooks:admin': 'manage webhook endpoints',
};

const limitsText = (limits: ApiKey['limits']) =>
  [limits.tokensPerDay === null ? '' : `${limits.tokensPerDay} tokens a day`, limits.refinesPerMinute === null ? '' : `${limits.refinesPerMinute} refines a minute`]
    .filter((s) => s !== '')
    .join(', ') || 'No limits';

const problemOf = (error: unknown) => asSentence(error instanceof Error ? error.message : String(error));

const newestFirst = (keys: ApiKey[]) => [...keys].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));

export function KeysView({ api }: { api: StudioApi }) {
  const { can, lacking, granted } = useScopes();
  const [keys, setKeys] = useState<ApiKey[] | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [issued, setIssued] = useState<{ key: IssuedApiKey; what: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['refine']);
  const [tokensPerDay, setTokensPerDay] = useState('');
  const [refinesPerMinute, setRefinesPerMinute] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [confirming, setConfirming] = useState<{ action: 'rotate' | 'revoke'; key: ApiKey } | undefined>(undefined);
  const mayAdmin = can('keys:admin');

  const reload = () => api.listKeys().then((listed) => setKeys(newestFirst(listed)), (error: unknown) => setProblem(problemOf(error)));
  useEffect(() => {
    if (mayAdmin) void reload();
  }, [mayAdmin]);

  const act = async (work: () => Promise<string | undefined>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      const done = await work();
      // Told once the list shows it: "revoked" beside a row still listed would contradict itself.
      await reload();
      setNotice(done);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };

  if (!mayAdmin) {
    return (
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">API keys</h2>
        <p class="notice">{lacking('keys:admin')} Ask someone with a key that has it to create or revoke keys.</p>
      </section>
    );
  }
  /** A key may only hand out the scopes it has. */
  const grantable = (scope: string) => granted === undefined || firstMissing(granted, [scope]) === undefined;

  return (
    <section aria-labelledby="keys-heading" class="keys">
      <h2 id="keys-heading">API keys</h2>
      <p role="status" class={notice ? 'notice' : 'visually-hidden'}>
        {notice}
      </p>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {keys === undefined ? (
        <p role="status">Loading…</p>
      ) : (
        <div class="table-scroll">
          <table class="keys-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Limits</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name || '(unnamed)'}</td>
                  <td>
                    <code>{key.prefix}…</code>
                    {key.previousSecretExpiresAt && (
                      <div class="hint">
                        old secret works until <time dateTime={key.previousSecretExpiresAt}>{new Date(key.previousSecretExpiresAt).toLocaleString()}</time>
                      </div>
                    )}
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{limitsText(key.limits)}</td>
                  <td>{key.expiresAt ?? 'Never'}</td>
                  <td>
                    <button type="button" disabled={busy} onClick={() => setConfirming({ action: 'rotate', key })}>
                      Rotate {key.name}
                    </button>{' '}
                    <button type="button" class="danger" disabled={busy} onClick={() => setConfirming({ action: 'revoke', key })}>
                      Revoke {key.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <form
        noValidate
        class="key-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim() === '') return setProblem('Give the key a name.');
          if (scopes.length === 0) return setProblem('Choose at least one scope.');
          const input: CreateKeyInput = { name: name.trim(), scopes: scopes as CreateKeyInput['scopes'] };
          const limits: NonNullable<CreateKeyInput['limits']> = {};
          if (tokensPerDay !== '') limits.tokensPerDay = Number(tokensPerDay);
          if (refinesPerMinute !== '') limits.refinesPerMinute = Number(refinesPerMinute);
          if (Object.keys(limits).length > 0) input.limits = limits;
          if (expiresAt !== '') input.expiresAt = new Date(expiresAt).toISOString();
          void act(async () => {
            const created = await api.createKey(input);
            setIssued({ key: created, what: 'Key created' });
            setName('');
            return `${created.name} created.`;
          });
        }}
      >
        <h3>New key</h3>
        <div class="field">
          <label for="key-name">Name</label>
          <input id="key-name" value={name} placeholder="blog app" onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <fieldset class="group">
          <legend>Scopes</legend>
          {SCOPE_NAMES.map((scope) => {
            const why = grantable(scope) ? undefined : `Your key lacks “${scope}”, so it cannot grant it.`;
            return (
              <div class="field checkbox" key={scope}>
                <input
                  id={`scope-${scope}`}
                  type="checkbox"
                  disabled={why !== undefined}
                  checked={scopes.includes(scope)}
                  onChange={(event) =>
                    setScopes(event.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))
                  }
                />
                <label for={`scope-${scope}`} title={why}>
                  <code>{scope}</code>: {SCOPE_HINTS[scope]}
                  {why && <span class="hint"> ({why})</span>}
                </label>
              </div>
            );
          })}
        </fieldset>
        <div class="field">
          <label for="key-tokens">Tokens a day (UTC, input + output; empty for no budget)</label>
          <input id="key-tokens" type="number" min="1" value={tokensPerDay} onInput={(event) => setTokensPerDay(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="key-refines">Refines a minute (empty for no limit)</label>
          <input id="key-refines" type="number" min="1" value={refinesPerMinute} onInput={(event) => setRefinesPerMinute(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="key-expires">Expires (empty for never)</label>
          <input id="key-expires" type="datetime-local" value={expiresAt} onInput={(event) => setExpiresAt(event.currentTarget.value)} />
        </div>
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </form>
      {confirming?.action === 'rotate' && (
        <ConfirmRotate
          apiKey={confirming.key}
          onCancel={() => setConfirming(undefined)}
          onRotate={(graceSeconds) => {
            const { key } = confirming;
            setConfirming(undefined);
            void act(async () => {
              const rotated = await api.rotateKey(key.id, graceSeconds);
              setIssued({ key: rotated, what: 'Key rotated' });
              return `${key.name || key.id} has a new secret.`;
            });
          }}
        />
      )}
      {confirming?.action === 'revoke' && (
        <ConfirmRevoke
          apiKey={confirming.key}
          onCancel={() => setConfirming(undefined)}
          onRevoke={() => {
            const { key } = confirming;
            setConfirming(undefined);
            void act(async () => {
              await api.revokeKey(key.id);
              return `${key.name || key.id} is revoked; it stops working within 5 seconds.`;
            });
          }}
        />
      )}
      {issued && <SecretOnce issued={issued.key} what={issued.what} onDone={() => setIssued(undefined)} />}
    </section>
  );
}
