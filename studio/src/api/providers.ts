/**
 * The providers the studio offers. The service's own list is the truth (it includes operator-declared
 * endpoints), but the API has no endpoint for it: its 400 for an unknown provider names the supported
 * ones, so the studio asks once (see StudioApi.supportedProviders) and falls back to the built-ins.
 */

export const BUILT_IN_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'deepseek', 'xai'] as const;

/** The rule-based provider applies a persona's rules without any LLM, so it needs no key. */
export const KEYLESS_PROVIDERS: ReadonlySet<string> = new Set(['rules']);

const DISPLAY_NAMES: Record<string, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  mistral: 'Mistral',
  groq: 'Groq',
  deepseek: 'DeepSeek',
  xai: 'xAI',
  rules: 'Rules only (no LLM)',
};

export function providerName(id: string): string {
  return DISPLAY_NAMES[id] ?? id;
}

/** The list out of `unknown provider "…"; supported: openai, anthropic, …`, or undefined. */
export function parseSupportedProviders(message: string): string[] | undefined {
  const list = /supported: (.+)$/.exec(message)?.[1];
  const ids = list?.split(',').map((id) => id.trim()).filter((id) => /^[a-z0-9][a-z0-9_-]*$/.test(id));
  return ids && ids.length > 0 ? ids : undefined;
}
