import { createAnthropic } from '@ai-sdk/anthropic';
import type { ProviderDefinition } from './provider-definition.js';

/** Anthropic Messages API (`POST /v1/messages`, `x-api-key`). */
export const anthropic: ProviderDefinition = {
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  defaultModel: 'claude-haiku-4-5',
  languageModel: ({ apiKey, baseURL, fetch }, modelId) => createAnthropic({ apiKey, baseURL, fetch })(modelId),
};
