import { anthropic } from './anthropic.js';
import { deepseek } from './deepseek.js';
import { google } from './google.js';
import { groq } from './groq.js';
import { mistral } from './mistral.js';
import { openai } from './openai.js';
import type { BuiltInProviderId } from './provider-config.js';
import type { ProviderDefinition } from './provider-definition.js';
import { xai } from './xai.js';

/**
 * Provider id → definition. Adding a provider: one file beside this one, one line here
 * and its id in provider-config.ts (the config check knows the ids without loading these).
 */
export const builtInProviders = {
  openai,
  anthropic,
  google,
  mistral,
  groq,
  deepseek,
  xai,
} satisfies Record<BuiltInProviderId, ProviderDefinition>;
