import { createOpenAI } from '@ai-sdk/openai';
import type { ProviderDefinition } from './provider-definition.js';

/**
 * OpenAI through the Responses API (`POST /responses`, what `openai(model)` uses).
 * Operators who need Chat Completions declare OpenAI as an OpenAI-compatible provider
 * (PROVIDER_BASE_URL_OPENAI_CHAT + PROVIDER_MODEL_OPENAI_CHAT), which speaks `/chat/completions`.
 */
export const openai: ProviderDefinition = {
  defaultBaseUrl: 'https://api.openai.com/v1',
  defaultModel: 'gpt-5.4-mini',
  languageModel: ({ apiKey, baseURL, fetch }, modelId) => createOpenAI({ apiKey, baseURL, fetch })(modelId),
  // The Responses API stores conversations by default; a rewrite needs no server-side state.
  providerOptions: { openai: { store: false } },
};
