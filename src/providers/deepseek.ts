import type { ProviderDefinition } from './provider-definition.js';
import { chatCompletions } from './wire/chat-completions.js';

/** DeepSeek's OpenAI-compatible chat completions (`POST /chat/completions`, no `/v1`). */
export const deepseek: ProviderDefinition = {
  name: 'DeepSeek',
  defaultBaseUrl: 'https://api.deepseek.com',
  // DeepSeek retired the `deepseek-chat` alias in July 2026; V4 Flash is its cheap general model.
  defaultModel: 'deepseek-v4-flash',
  wire: chatCompletions,
};
