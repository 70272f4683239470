/**
 * The OpenAI Chat Completions shapes `client.chat` sends and reads, derived from the generated
 * OpenAPI types like every SDK type, with OpenAI's own member names (snake_case): a request
 * written for the `openai` package reads the same here.
 */
import type { components, paths } from './generated/openapi.js';

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type ChatBody = JsonOf<paths['/v1/chat/completions']['post']['requestBody']>;

export type ChatMessage = ChatBody['messages'][number];
/** A message's content: a string, or text parts (image and audio parts are refused with a 400). */
export type ChatContent = ChatMessage['content'];
export type ChatTool = NonNullable<ChatBody['tools']>[number];
export type ChatToolChoice = NonNullable<ChatBody['tool_choice']>;
export type ChatResponseFormat = NonNullable<ChatBody['response_format']>;

/** The optional members of a Chat Completions request the service translates to every provider. */
export type ChatOptions = Omit<ChatBody, 'model' | 'messages' | 'persona' | 'variant' | 'stream' | 'stream_options' | 'n'>;

export interface ChatInput extends ChatOptions {
  /** `<personaId>`, `<personaId>@<label>` or `<personaId>:<version>`; sent as `X-Persona`. */
  persona: string;
  /** `<provider>/<model>` (`anthropic/claude-haiku-4-5`) or `<provider>` alone for its default model. */
  model: string;
  messages: ChatMessage[];
  /** One of the persona's `variants`, merged over its attributes; sent as `X-Persona-Variant`. */
  variant?: string;
  /** Your key for that provider; sent as `X-Provider-Api-Key`, never in the body. Absent only for a provider that needs none. */
  providerApiKey?: string;
}

export interface ChatStreamInput extends ChatInput {
  /** Ask for the last chunk's `usage` (`stream_options.include_usage`). */
  includeUsage?: boolean;
}

export type ChatCompletion = JsonOf<paths['/v1/chat/completions']['post']['responses'][200]>;
export type ChatToolCall = NonNullable<ChatCompletion['choices'][number]['message']['tool_calls']>[number];
export type ChatFinishReason = ChatCompletion['choices'][number]['finish_reason'];
/** Summed over every provider call the completion made (the repair call included). */
export type ChatUsage = ChatCompletion['usage'];

/** A streamed completion's chunk; the last one, with `includeUsage`, carries `usage` and no choices. */
export type ChatCompletionChunk = components['schemas']['ChatCompletionChunk'];
/** A tool call as a chunk carries it; OpenAI's own streams split one over several chunks, which are merged by `index`. */
export type ChatToolCallDelta = NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number];
