import type { ProviderDefinition } from './provider-definition.js';
import { chatCompletions } from './wire/chat-completions.js';

/** Groq's OpenAI-compatible chat completions (`POST /openai/v1/chat/completions`). */
export const groq: ProviderDefinition = {
  name: 'Groq',
  defaultBaseUrl: 'https://api.groq.com/openai/v1',
  // Rewriting in a voice needs more than an 8B model; this one is still cheap and fast on Groq.
  defaultModel: 'llama-3.3-70b-versatile',
  wire: chatCompletions,
};
