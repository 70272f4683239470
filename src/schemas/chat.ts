/**
 * POST /v1/chat/completions and GET /v1/models: OpenAI's shapes, so its clients work with only
 * a base URL changed. Members we do not know are accepted and ignored, as OpenAI's own clients
 * expect of a compatible server; the limits bound what one request may make us hold.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { ChatRequest } from '../chat/chat-request.js';
import { VARIANT_NAME_PATTERN } from '../personas/catalogue/index.js';
import { type Assignable, CacheControlHeaders, IdempotencyHeaders } from './common.js';
import { CONTENT_MAX_LENGTH, MODEL_PATTERN, PROVIDER_KEY_MAX_LENGTH, PROVIDER_KEY_PATTERN } from './refine.js';

export const MAX_MESSAGES = 500;
export const MAX_CONTENT_PARTS = 100;
export const MAX_TOOLS = 128;
export const MAX_STOP_SEQUENCES = 4;

const text = (description: string) => Type.String({ maxLength: CONTENT_MAX_LENGTH, description });
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const ContentPart = Type.Object({
  type: Type.String({ maxLength: 64, description: '`text`; image, audio and file parts are refused with a 400 that says so' }),
  text: Type.Optional(text('The part\'s text')),
});

const ToolCall = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.Literal('function'),
  function: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), arguments: text('The call\'s arguments as JSON text') }),
});

const Message = Type.Object({
  role: Type.Union([Type.Literal('system'), Type.Literal('developer'), Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool')]),
  content: Type.Optional(nullable(Type.Union([text('The message\'s text'), Type.Array(ContentPart, { maxItems: MAX_CONTENT_PARTS })]))),
  tool_calls: Type.Optional(Type.Array(ToolCall, { maxItems: MAX_TOOLS })),
  tool_call_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

const FreeObject = Type.Record(Type.String(), Type.Unknown());

const Tool = Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    parameters: Type.Optional(FreeObject),
    strict: Type.Optional(nullable(Type.Boolean())),
  }),
});

const ToolChoice = Type.Union([
  Type.Literal('auto'), Type.Literal('none'), Type.Literal('required'),
  Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) }) }),
]);

const ResponseFormat = Type.Union([
  Type.Object({ type: Type.Literal('text') }),
  Type.Object({ type: Type.Literal('json_object') }),
  Type.Object({
    type: Type.Literal('json_schema'),
    json_schema: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 64 }),
      description: Type.Optional(Type.String({ maxLength: 10_000 })),
      schema: Type.Optional(FreeObject),
      strict: Type.Optional(nullable(Type.Boolean())),
    }),
  }),
]);

export const ChatCompletionBody = Type.Object({
  model: Type.String({ minLength: 1, maxLength: 265, pattern: MODEL_PATTERN, description: '`<provider>/<model>` (e.g. `anthropic/claude-haiku-4-5`) or `<provider>` for its default model' }),
  messages: Type.Array(Message, { minItems: 1, maxItems: MAX_MESSAGES }),
  persona: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: '`<personaId>`, `<personaId>@<label>` or `<personaId>:<version>`, when the X-Persona header is not sent' })),
  variant: Type.Optional(
    Type.String({ pattern: VARIANT_NAME_PATTERN, description: "One of the persona's `variants`, when the X-Persona-Variant header is not sent (docs/rules-and-attributes.md, \"Variants\")" }),
  ),
  temperature: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  max_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
  max_completion_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
  stop: Type.Optional(nullable(Type.Union([Type.String({ maxLength: 200 }), Type.Array(Type.String({ maxLength: 200 }), { maxItems: MAX_STOP_SEQUENCES })]))),
  seed: Type.Optional(nullable(Type.Integer())),
  user: Type.Optional(Type.String({ maxLength: 256 })),
  n: Type.Optional(nullable(Type.Integer({ minimum: 1, description: 'Only 1: one persona answer per request' }))),
  stream: Type.Optional(nullable(Type.Boolean())),
  stream_options: Type.Optional(nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }))),
  response_format: Type.Optional(ResponseFormat),
  tools: Type.Optional(Type.Array(Tool, { maxItems: MAX_TOOLS })),
  tool_choice: Type.Optional(ToolChoice),
});
export type ChatCompletionBody = Static<typeof ChatCompletionBody>;
export type ChatBodyIsDomainRequest = Assignable<ChatCompletionBody, ChatRequest>;

export const ChatHeaders = Type.Composite([IdempotencyHeaders, CacheControlHeaders, Type.Object({
  'x-persona': Type.Optional(Type.String({ maxLength: 300, description: 'The persona: `<personaId>`, `<personaId>@<label>` or `<personaId>:<version>`' })),
  'x-persona-variant': Type.Optional(
    Type.String({ pattern: VARIANT_NAME_PATTERN, description: "One of the persona's `variants`, merged over its attributes; wins over the body's `variant`" }),
  ),
  'x-provider-api-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: PROVIDER_KEY_MAX_LENGTH, pattern: PROVIDER_KEY_PATTERN, description: "The caller's own key for the provider `model` names: used for this call only, never stored, logged or echoed" }),
  ),
})]);

const AnswerToolCall = Type.Object({
  id: Type.String(), type: Type.Literal('function'), function: Type.Object({ name: Type.String(), arguments: Type.String() }),
}, { additionalProperties: false });

const FinishReason = Type.Union([Type.Literal('stop'), Type.Literal('length'), Type.Literal('tool_calls'), Type.Literal('content_filter')]);

export const ChatUsage = Type.Object({
  prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer(),
}, { additionalProperties: false, description: 'Summed over every provider call the completion made (the repair call included)' });

export const ChatCompletion = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion'),
  created: Type.Integer({ description: 'Unix seconds' }),
  model: Type.String({ description: '`<provider>/<model used>`' }),
  choices: Type.Array(Type.Object({
    index: Type.Integer(),
    message: Type.Object({
      role: Type.Literal('assistant'),
      content: nullable(Type.String()),
      tool_calls: Type.Optional(Type.Array(AnswerToolCall)),
    }, { additionalProperties: false }),
    finish_reason: FinishReason,
  }, { additionalProperties: false })),
  usage: ChatUsage,
}, { additionalProperties: false });
export type ChatCompletion = Static<typeof ChatCompletion>;

/** One `data:` line of a streamed completion. */
export const ChatCompletionChunk = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion.chunk'),
  created: Type.Integer(),
  model: Type.String(),
  choices: Type.Array(Type.Object({
    index: Type.Integer(),
    delta: Type.Object({
      role: Type.Optional(Type.Literal('assistant')),
      content: Type.Optional(Type.String()),
      tool_calls: Type.Optional(Type.Array(Type.Composite([Type.Object({ index: Type.Integer() }), AnswerToolCall]))),
    }),
    finish_reason: nullable(FinishReason),
  })),
  usage: Type.Optional(nullable(ChatUsage)),
}, { $id: 'ChatCompletionChunk', description: 'A streamed completion: `data: <chunk>` lines, then `data: [DONE]`' });
export type ChatCompletionChunk = Static<typeof ChatCompletionChunk>;

export const OpenAiErrorBody = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.String({ description: '`invalid_request_error`, `authentication_error`, `permission_error`, `not_found_error`, `rate_limit_error`, `server_error`…' }),
    param: nullable(Type.String()),
    code: nullable(Type.String({ description: 'The error code the rest of the API uses (`invalid_request`, `provider_rate_limited`…)' })),
  }),
}, { $id: 'OpenAiError', additionalProperties: false });
export type OpenAiErrorBody = Static<typeof OpenAiErrorBody>;

/** A route's error responses in OpenAI's body, for the OpenAPI document. */
export const openAiErrors = (statuses: readonly number[]) =>
  Object.fromEntries(statuses.map((status) => [status, { description: "OpenAI's error body", ...Type.Ref(OpenAiErrorBody) }]));

export const ModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Object({
    id: Type.String({ description: '`<provider>/<model>`, as `model` takes it' }),
    object: Type.Literal('model'),
    created: Type.Integer(),
    owned_by: Type.String({ description: 'The provider id' }),
  }, { additionalProperties: false })),
}, { additionalProperties: false });
export type ModelList = Static<typeof ModelList>;
