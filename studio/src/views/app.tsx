/** Signed out: the sign-in page. Signed in: the workspace, with an API client bound to the key. */
import { useMemo, useState } from 'preact/hooks';
import { StudioApi } from '../api/client.js';
import type { Persona } from '../api/types.js';
import { storeApiKey, storedApiKey } from '../session.js';
import { SignIn } from './sign-in.js';
import { Workspace } from './workspace.js';

export function App() {
  const [apiKey, setApiKey] = useState(storedApiKey);
  const [reason, setReason] = useState<string | undefined>(undefined);
  const [firstList, setFirstList] = useState<Persona[] | undefined>(undefined);

  const signOut = (why?: string) => {
    storeApiKey(undefined);
    setApiKey(undefined);
    setReason(why);
    setFirstList(undefined);
  };
  const api = useMemo(
    () => (apiKey ? new StudioApi(apiKey, () => signOut('Your API key is no longer accepted. Sign in again.')) : undefined),
    [apiKey],
  );

  if (!api) {
    return (
      <SignIn
        reason={reason}
        onSignedIn={(key, personas) => {
          storeApiKey(key);
          setFirstList(personas);
          setReason(undefined);
          setApiKey(key);
        }}
      />
    );
  }
  // Keyed by the key: signing in again starts from a clean slate, provider key included.
  return <Workspace key={apiKey} api={api} initialPersonas={firstList} onSignOut={() => signOut()} />;
}
