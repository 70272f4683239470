import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ProviderDefinition } from './provider-definition.js';

/**
 * An operator-declared OpenAI-compatible endpoint (Ollama, vLLM, LM Studio, OpenRouter…),
 * spoken to over `POST {baseUrl}/chat/completions`. There is no public default: the
 * operator always gives both the base URL and the model.
 */
export function openAICompatible(id: string, baseUrl: string, model: string): ProviderDefinition {
  return {
    defaultBaseUrl: baseUrl,
    defaultModel: model,
    languageModel: ({ apiKey, baseURL, fetch }, modelId) =>
      createOpenAICompatible({ name: id, apiKey, baseURL, fetch }).chatModel(modelId),
  };
}
