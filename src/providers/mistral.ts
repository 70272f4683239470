import { createMistral } from '@ai-sdk/mistral';
import type { ProviderDefinition } from './provider-definition.js';

/** Mistral chat completions (`POST /v1/chat/completions`, Bearer key). */
export const mistral: ProviderDefinition = {
  defaultBaseUrl: 'https://api.mistral.ai/v1',
  defaultModel: 'mistral-small-latest',
  languageModel: ({ apiKey, baseURL, fetch }, modelId) => createMistral({ apiKey, baseURL, fetch })(modelId),
};
