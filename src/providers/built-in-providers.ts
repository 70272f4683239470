import { anthropic } from './anthropic.js';
import { deepseek } from './deepseek.js';
import { google } from './google.js';
import { groq } from './groq.js';
import { mistral } from './mistral.js';
import { openai } from './openai.js';
import type { ProviderDefinition } from './provider-definition.js';
import { xai } from './xai.js';

/** Provider id → definition. Adding a provider: one file beside this one and one line here. */
export const builtInProviders = {
  openai,
  anthropic,
  google,
  mistral,
  groq,
  deepseek,
  xai,
} satisfies Record<string, ProviderDefinition>;

export const builtInProviderIds: readonly string[] = Object.keys(builtInProviders);

export function isBuiltInProvider(id: string): id is keyof typeof builtInProviders {
  return Object.hasOwn(builtInProviders, id);
}
