import type { ProviderDefinition } from './provider-definition.js';
import { openAIResponses } from './wire/openai-responses.js';

/**
 * OpenAI through the Responses API (`POST /responses`), with a lean wire format: the
 * hottest provider, where the SDK's per-call CPU was most of our added latency.
 * Operators who need Chat Completions declare OpenAI as an OpenAI-compatible provider
 * (PROVIDER_BASE_URL_OPENAI_CHAT + PROVIDER_MODEL_OPENAI_CHAT), which speaks `/chat/completions`.
 */
export const openai: ProviderDefinition = {
  name: 'OpenAI',
  defaultBaseUrl: 'https://api.openai.com/v1',
  defaultModel: 'gpt-5.4-mini',
  wire: openAIResponses,
};
