import type { ProviderDefinition } from './provider-definition.js';
import { anthropicMessages } from './wire/anthropic-messages.js';

/** Anthropic Messages API (`POST /v1/messages`, `x-api-key`). */
export const anthropic: ProviderDefinition = {
  name: 'Anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  defaultModel: 'claude-haiku-4-5',
  wire: anthropicMessages,
};
