import type { ProviderDefinition } from './provider-definition.js';
import { mistralChatCompletions } from './wire/chat-completions.js';

/** Mistral chat completions (`POST /v1/chat/completions`, Bearer key); its error bodies are read by provider-error-body.ts. */
export const mistral: ProviderDefinition = {
  name: 'Mistral',
  defaultBaseUrl: 'https://api.mistral.ai/v1',
  defaultModel: 'mistral-small-latest',
  wire: mistralChatCompletions,
};
