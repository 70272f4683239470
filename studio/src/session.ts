/**
 * The service API key lives in sessionStorage only: it survives a reload of this tab and is
 * gone when the tab closes. The provider key is never stored anywhere (see views/app.tsx).
 */
const KEY = 'persona-refine.studio.apiKey';

export function storedApiKey(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined; // Storage disabled: the studio still works, the key just does not survive a reload.
  }
}

export function storeApiKey(key: string | undefined): void {
  try {
    if (key === undefined) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, key);
  } catch {
    // See storedApiKey.
  }
}
