/**
 * What the signed-in key may do (GET /v1/keys/current), so a control the key lacks the scope
 * for is disabled with the reason instead of failing when used. Until the answer arrives (or if
 * the service is too old to say) everything is allowed and the service's 403 stays the guard.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { hasScope, type Scope as ScopeName } from '../../src/accounts/scopes.js';

// The one list of scopes is the service's own (pure, no imports): the studio bundles it.
export { SCOPES as SCOPE_NAMES, type Scope as ScopeName, firstMissing, hasScope } from '../../src/accounts/scopes.js';

export interface KeyScopes {
  /** Undefined while unknown. */
  granted: readonly string[] | undefined;
}

export const ScopesContext = createContext<KeyScopes>({ granted: undefined });

export function useScopes() {
  const { granted } = useContext(ScopesContext);
  const can = (scope: ScopeName) => granted === undefined || hasScope(granted, scope);
  /** The sentence shown beside a disabled control; undefined when the key may. */
  const lacking = (scope: ScopeName) => (can(scope) ? undefined : `This key lacks the scope “${scope}”.`);
  return { granted, can, lacking };
}
