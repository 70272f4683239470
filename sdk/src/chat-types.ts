/**
 * The OpenAI Chat Completions shapes `client.chat` sends and reads, with OpenAI's own member
 * names (snake_case), so a request written for the `openai` package reads the same here.
 */

export interface ChatTextPart {
  type: 'text';
  text: string;
}

/** A message's content: a string, or text parts (image and audio parts are refused with a 400). */
export type ChatContent = string | ChatTextPart[];

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: ChatContent; name?: string }
  | { role: 'user'; content: ChatContent; name?: string }
  | { role: 'assistant'; content?: ChatContent | null; tool_calls?: ChatToolCall[]; name?: string }
  | { role: 'tool'; content: ChatContent; tool_call_id: string };

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean } };

/** The optional members of a Chat Completions request the service translates to every provider. */
export interface ChatOptions {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  seed?: number;
  user?: string;
  response_format?: ChatResponseFormat;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
}

export interface ChatInput extends ChatOptions {
  /** `<personaId>`, `<personaId>@<label>` or `<personaId>:<version>`; sent as `X-Persona`. */
  persona: string;
  /** `<provider>/<model>` (`anthropic/claude-haiku-4-5`) or `<provider>` alone for its default model. */
  model: string;
  messages: ChatMessage[];
  /** Your key for that provider; sent as `X-Provider-Api-Key`, never in the body. Absent only for a provider that needs none. */
  providerApiKey?: string;
}

export interface ChatStreamInput extends ChatInput {
  /** Ask for the last chunk's `usage` (`stream_options.include_usage`). */
  includeUsage?: boolean;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  /** `<provider>/<model used>`. */
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] };
    finish_reason: ChatFinishReason | null;
  }>;
  /** Summed over every provider call the completion made (the repair call included). */
  usage?: ChatUsage;
}

/** A tool call as a chunk carries it: the first piece names it, later ones add to `arguments`. */
export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string | null; tool_calls?: ChatToolCallDelta[] };
    finish_reason: ChatFinishReason | null;
  }>;
  /** On the last chunk only, with `includeUsage` (its `choices` are then empty). */
  usage?: ChatUsage | null;
}
