/**
 * What a chat completion is asked to do, as the domain takes it: OpenAI's Chat Completions
 * request (the members we honour, in OpenAI's own names, since callers send exactly that),
 * plus where the persona and the provider key came from. POST /v1/chat/completions's body is
 * adapted to this (src/schemas/chat.ts checks at compile time that it is assignable).
 */

export interface ChatTextPart {
  type: string;
  text?: string;
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | ChatTextPart[] | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null } };

export interface ChatRequest {
  /** `<provider>/<model>` or `<provider>` alone for its default model. */
  model: string;
  messages: ChatMessage[];
  /** `<personaId>`, `<personaId>@<label>` or `<personaId>:<version>`; the X-Persona header wins. */
  persona?: string;
  /** One of the persona's `variants`; the X-Persona-Variant header wins. */
  variant?: string;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  user?: string;
  n?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  response_format?: ChatResponseFormat;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
}
