import type { ProviderDefinition } from './provider-definition.js';
import { chatCompletions } from './wire/chat-completions.js';

/**
 * An operator-declared OpenAI-compatible endpoint (Ollama, vLLM, LM Studio, OpenRouter…),
 * spoken to over `POST {baseUrl}/chat/completions`. There is no public default: the
 * operator always gives both the base URL and the model.
 */
export function openAICompatible(baseUrl: string, model: string): ProviderDefinition {
  return { defaultBaseUrl: baseUrl, defaultModel: model, wire: chatCompletions };
}
