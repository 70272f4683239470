/**
 * What a key may do (docs/keys-and-scopes.md, "Scopes"). Every authenticated route
 * declares the one scope it needs in its route config (`config: { scope }`);
 * `*` grants them all.
 */
export const SCOPES = [
  'personas:read',
  'personas:write',
  'labels:write',
  'labels:protected',
  'refine',
  'evals',
  'usage:read',
  'audit:read',
  'keys:admin',
  'webhooks:admin',
] as const;

export type Scope = (typeof SCOPES)[number];
export const ALL_SCOPES = '*';
export type ScopeGrant = Scope | typeof ALL_SCOPES;
export const SCOPE_GRANTS: readonly ScopeGrant[] = [...SCOPES, ALL_SCOPES];

export function hasScope(granted: readonly string[], needed: Scope): boolean {
  return granted.includes(ALL_SCOPES) || granted.includes(needed);
}

/** The first scope of `requested` that `granted` does not cover (a key cannot grant what it lacks). */
export function firstMissing(granted: readonly string[], requested: readonly string[]): string | undefined {
  if (granted.includes(ALL_SCOPES)) return undefined;
  return requested.find((scope) => scope === ALL_SCOPES || !granted.includes(scope));
}

/** Stored as JSON text; anything unreadable grants nothing. */
export function parseScopes(stored: string): ScopeGrant[] {
  try {
    const value: unknown = JSON.parse(stored);
    if (!Array.isArray(value)) return [];
    return value.filter((s): s is ScopeGrant => typeof s === 'string' && (SCOPE_GRANTS as readonly string[]).includes(s));
  } catch {
    return [];
  }
}
