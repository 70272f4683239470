/**
 * What the signed-in key may do (GET /v1/keys/current), so a control the key lacks the scope
 * for is disabled with the reason instead of failing when used. Until the answer arrives (or if
 * the service is too old to say) everything is allowed and the service's 403 stays the guard.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export const SCOPE_NAMES = [
  'personas:read',
  'personas:write',
  'labels:write',
  'labels:protected',
  'refine',
  'evals',
  'usage:read',
  'audit:read',
  'keys:admin',
] as const;
export type ScopeName = (typeof SCOPE_NAMES)[number];

export interface KeyScopes {
  /** Undefined while unknown. */
  granted: readonly string[] | undefined;
}

export const ScopesContext = createContext<KeyScopes>({ granted: undefined });

export function useScopes() {
  const { granted } = useContext(ScopesContext);
  const can = (scope: ScopeName) => granted === undefined || granted.includes('*') || granted.includes(scope);
  /** The sentence shown beside a disabled control; undefined when the key may. */
  const lacking = (scope: ScopeName) => (can(scope) ? undefined : `This key lacks the scope “${scope}”.`);
  return { granted, can, lacking };
}
