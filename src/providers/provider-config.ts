/**
 * The operator's provider settings and their check. A leaf on purpose: config.ts
 * imports it, so loading the configuration (the server's first step, and all the
 * admin CLI needs) never loads the provider machinery or its HTTP client.
 */

/** What PROVIDER_BASE_URL_<ID> and PROVIDER_MODEL_<ID> set, by provider id (lowercase). */
export interface ProviderOverrides {
  /** Provider id → base URL, from PROVIDER_BASE_URL_<ID>. */
  baseUrls: Record<string, string>;
  /** Provider id → default model, from PROVIDER_MODEL_<ID>. */
  models: Record<string, string>;
}

/**
 * The built-in providers' ids. built-in-providers.ts holds their definitions and
 * must define exactly these (its `satisfies` fails to compile otherwise).
 */
export const builtInProviderIds = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'deepseek', 'xai'] as const;
export type BuiltInProviderId = (typeof builtInProviderIds)[number];

export function isBuiltInProvider(id: string): id is BuiltInProviderId {
  return (builtInProviderIds as readonly string[]).includes(id);
}

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
