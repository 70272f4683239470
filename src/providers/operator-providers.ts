import type { ProviderOverrides } from '../config.js';
import { builtInProviderIds, isBuiltInProvider } from './built-in-providers.js';

/** Ids other modules provide; an operator may not declare an endpoint under them. */
export const reservedProviderIds: readonly string[] = ['rules'];

/** A configuration mistake, shaped for `new ConfigError(variable, problem)` from src/config.ts. */
export interface ProviderConfigProblem {
  variable: string;
  problem: string;
}

/** config.ts turns PROVIDER_BASE_URL_OPEN_ROUTER into id `open-router`; this is the way back. */
export const providerVariable = (kind: 'BASE_URL' | 'MODEL', id: string) =>
  `PROVIDER_${kind}_${id.toUpperCase().replace(/-/g, '_')}`;

/** Ids declared by a PROVIDER_BASE_URL_<ID> that names no built-in provider. */
export const operatorProviderIds = (overrides: ProviderOverrides): string[] =>
  Object.keys(overrides.baseUrls).filter((id) => !isBuiltInProvider(id));

/**
 * The first problem in the provider overrides, or undefined when they are usable.
 * A base URL for an unknown id declares an OpenAI-compatible provider, which has no
 * default model; a model for an id nothing declares is almost certainly a typo.
 */
export function findProviderConfigProblem(overrides: ProviderOverrides): ProviderConfigProblem | undefined {
  for (const id of Object.keys(overrides.baseUrls)) {
    if (reservedProviderIds.includes(id)) {
      return {
        variable: providerVariable('BASE_URL', id),
        problem: `is not allowed: "${id}" is a reserved provider id`,
      };
    }
  }
  for (const id of operatorProviderIds(overrides)) {
    if (!overrides.models[id]) {
      return {
        variable: providerVariable('MODEL', id),
        problem:
          `must be set: ${providerVariable('BASE_URL', id)} declares the OpenAI-compatible provider ` +
          `"${id}", which has no default model`,
      };
    }
  }
  for (const id of Object.keys(overrides.models)) {
    if (isBuiltInProvider(id) || reservedProviderIds.includes(id) || id in overrides.baseUrls) continue;
    return {
      variable: providerVariable('MODEL', id),
      problem:
        `names no provider: built-in providers are ${builtInProviderIds.join(', ')}; ` +
        `set ${providerVariable('BASE_URL', id)} to declare an OpenAI-compatible provider "${id}"`,
    };
  }
  return undefined;
}
