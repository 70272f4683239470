import { createDeepSeek } from '@ai-sdk/deepseek';
import type { ProviderDefinition } from './provider-definition.js';

/** DeepSeek's OpenAI-compatible chat completions (`POST /chat/completions`, no `/v1`). */
export const deepseek: ProviderDefinition = {
  defaultBaseUrl: 'https://api.deepseek.com',
  // DeepSeek retired the `deepseek-chat` alias in July 2026; V4 Flash is its cheap general model.
  defaultModel: 'deepseek-v4-flash',
  languageModel: ({ apiKey, baseURL, fetch }, modelId) => createDeepSeek({ apiKey, baseURL, fetch })(modelId),
};
