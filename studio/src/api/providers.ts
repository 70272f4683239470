/**
 * The providers the studio offers: exactly what the service lists at GET /v1/providers (its
 * built-ins, the operator's own endpoints and `rules`), typed from the SDK's generated types.
 */
import type { paths } from '../../../sdk/src/generated/openapi.js';

export type Provider = paths['/v1/providers']['get']['responses'][200]['content']['application/json'][number];

/** A provider's display name; an id the service does not list (typed under "Other…") is its own name. */
export type ProviderNames = (id: string) => string;

export function providerNames(providers: readonly Provider[]): ProviderNames {
  return (id) => providers.find((provider) => provider.id === id)?.name ?? id;
}
