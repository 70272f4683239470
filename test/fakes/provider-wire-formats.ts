/**
 * What real providers put on the wire, from their API references: request shapes the fake
 * reads, success bodies it writes, and each provider's error bodies. Used by provider-server.ts.
 */

/** The four API families the providers speak. */
export type WireApi = 'openai-responses' | 'openai-chat' | 'anthropic-messages' | 'google-generate-content';

export type ErrorKind = 'rejectKey' | 'badRequest' | 'rateLimit' | 'serverError' | 'overloaded';

export interface WireAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where the public API lives below the host, so fake base URLs mirror the real ones. */
export const publicBasePath: Record<string, string> = {
  openai: '/v1',
  anthropic: '/v1',
  google: '/v1beta',
  mistral: '/v1',
  groq: '/openai/v1',
  deepseek: '',
  xai: '/v1',
};

export function apiOf(apiPath: string): { api: WireApi; pathModel?: string; streamPath?: boolean } | undefined {
  if (apiPath.endsWith('/responses')) return { api: 'openai-responses' };
  if (apiPath.endsWith('/chat/completions')) return { api: 'openai-chat' };
  if (apiPath.endsWith('/v1/messages')) return { api: 'anthropic-messages' };
  const google = /\/models\/([^/]+):(generateContent|streamGenerateContent)$/.exec(apiPath);
  if (google?.[1]) return { api: 'google-generate-content', pathModel: decodeURIComponent(google[1]), streamPath: google[2] === 'streamGenerateContent' };
  return undefined;
}

/** Text of a content field: a string or a list of text parts ({type:'text'|'input_text', text} or {text}). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

const lastOfRole = (items: unknown, role: string): Json | undefined =>
  Array.isArray(items) ? items.filter(isObject).filter((item) => item.role === role).at(-1) : undefined;

/** The last user message's text, wherever this API puts it. */
export function userTextOf(api: WireApi, body: unknown): string {
  if (!isObject(body)) return '';
  switch (api) {
    case 'openai-responses':
      return typeof body.input === 'string' ? body.input : textOf(lastOfRole(body.input, 'user')?.content);
    case 'openai-chat':
      return textOf(lastOfRole(body.messages, 'user')?.content);
    case 'anthropic-messages':
      return textOf(lastOfRole(body.messages, 'user')?.content);
    case 'google-generate-content':
      return textOf(lastOfRole(body.contents, 'user')?.parts);
  }
}

export function modelOf(api: WireApi, body: unknown, pathModel: string | undefined): string {
  if (api === 'google-generate-content') return pathModel ?? '';
  return isObject(body) && typeof body.model === 'string' ? body.model : '';
}

let sequence = 0;
const nextId = () => `fake${(++sequence).toString(36).padStart(8, '0')}`;
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The tokens the fake reports for a request and its reply (about four characters a token). */
export const fakeTokenCounts = (userText: string, reply: string) => ({ input: tokens(userText), output: tokens(reply) });

export function successBody(api: WireApi, model: string, userText: string, text: string, options: { omitUsage?: boolean } = {}): unknown {
  const body = successBodyWithUsage(api, model, userText, text) as Json;
  if (options.omitUsage) {
    delete body.usage;
    delete body.usageMetadata;
  }
  return body;
}

function successBodyWithUsage(api: WireApi, model: string, userText: string, text: string): unknown {
  const id = nextId();
  const input = tokens(userText);
  const output = tokens(text);
  const now = Math.floor(Date.now() / 1000);
  switch (api) {
    case 'openai-responses':
      return {
        id: `resp_${id}`, object: 'response', created_at: now, status: 'completed', error: null,
        incomplete_details: null, instructions: null, max_output_tokens: null, model,
        output: [{
          type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
        }],
        parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null },
        store: false, temperature: 1, text: { format: { type: 'text' } }, tool_choice: 'auto', tools: [],
        top_p: 1, truncation: 'disabled', user: null, metadata: {},
        usage: {
          input_tokens: input, input_tokens_details: { cached_tokens: 0 },
          output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output,
        },
      };
    case 'openai-chat':
      return {
        id: `chatcmpl-${id}`, object: 'chat.completion', created: now, model, system_fingerprint: 'fp_fake',
        choices: [{
          index: 0, message: { role: 'assistant', content: text, refusal: null, annotations: [] },
          logprobs: null, finish_reason: 'stop',
        }],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
    case 'anthropic-messages':
      return {
        id: `msg_${id}`, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }],
        stop_reason: 'end_turn', stop_sequence: null,
        usage: { input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      };
    case 'google-generate-content':
      return {
        candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output },
        modelVersion: model, responseId: id,
      };
  }
}

/**
 * What a request asking for structured output wants, read where each API puts the schema:
 * Responses `text.format` (json_schema), Chat Completions `response_format` (json_schema),
 * Anthropic a forced tool (`tool_choice: { type: 'tool', name }`), Gemini
 * `generationConfig.responseSchema` with `responseMimeType: application/json`.
 */
export interface StructuredRequest {
  schema: Json;
  /** Anthropic: the forced tool's name, which the answer's tool_use block carries. */
  toolName?: string;
}

export function structuredRequestOf(api: WireApi, body: unknown): StructuredRequest | undefined {
  if (!isObject(body)) return undefined;
  switch (api) {
    case 'openai-responses': {
      const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : undefined;
      return format?.type === 'json_schema' && isObject(format.schema) ? { schema: format.schema } : undefined;
    }
    case 'openai-chat': {
      const format = isObject(body.response_format) ? body.response_format : undefined;
      return format?.type === 'json_schema' && isObject(format.json_schema) && isObject(format.json_schema.schema) ? { schema: format.json_schema.schema } : undefined;
    }
    case 'anthropic-messages': {
      const choice = isObject(body.tool_choice) ? body.tool_choice : undefined;
      if (choice?.type !== 'tool' || !Array.isArray(body.tools)) return undefined;
      const tool = body.tools.filter(isObject).find((candidate) => candidate.name === choice.name);
      return tool && isObject(tool.input_schema) ? { schema: tool.input_schema, toolName: String(tool.name) } : undefined;
    }
    case 'google-generate-content': {
      const config = isObject(body.generationConfig) ? body.generationConfig : undefined;
      return config?.responseMimeType === 'application/json' && isObject(config.responseSchema) ? { schema: config.responseSchema } : undefined;
    }
  }
}

/** The attribute names a ratings schema allows (`ratings[].attribute`'s enum), whichever API's dialect it is in. */
export function ratedAttributesOf(schema: Json): string[] {
  const ratings = isObject(schema.properties) && isObject(schema.properties.ratings) ? schema.properties.ratings : {};
  const item = isObject(ratings.items) && isObject(ratings.items.properties) ? ratings.items.properties : {};
  const attribute = isObject(item.attribute) ? item.attribute : {};
  return Array.isArray(attribute.enum) ? attribute.enum.map(String) : [];
}

/**
 * A structured answer as each provider sends it: the JSON as the message text, except Anthropic,
 * whose forced tool answers with a `tool_use` block holding it as `input`. A string `value` is
 * sent as the text as it is (Anthropic: a text block instead of the tool call), to fake a model
 * that broke the format.
 */
export function structuredSuccessBody(api: WireApi, model: string, userText: string, value: unknown, toolName: string | undefined): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const body = successBodyWithUsage(api, model, userText, text) as Json;
  if (api === 'anthropic-messages' && typeof value !== 'string') {
    body.content = [{ type: 'tool_use', id: `toolu_${nextId()}`, name: toolName, input: value }];
    body.stop_reason = 'tool_use';
  }
  return body;
}

/** Error body families; groq, deepseek and OpenAI-compatible servers use OpenAI's. */
type Family = 'openai' | 'anthropic' | 'google' | 'mistral' | 'xai';
const familyOf = (provider: string): Family =>
  provider === 'anthropic' || provider === 'google' || provider === 'mistral' || provider === 'xai' ? provider : 'openai';

/** status, message, and the provider's type/status/code label, per kind and family. */
const ERRORS: Record<Exclude<ErrorKind, 'rejectKey'>, Record<Family, [number, string, string]>> = {
  badRequest: {
    openai: [400, "Invalid type for 'input': expected a string or an array of input items.", 'invalid_request_error'],
    anthropic: [400, 'messages: text content blocks must be non-empty', 'invalid_request_error'],
    google: [400, 'Invalid JSON payload received. Unknown name "foo": Cannot find field.', 'INVALID_ARGUMENT'],
    mistral: [400, 'Invalid model: unknown-model', 'invalid_model'],
    xai: [400, 'The model unknown-model does not exist or your team does not have access to it.', 'Client specified an invalid argument'],
  },
  rateLimit: {
    openai: [429, 'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1.', 'rate_limit_exceeded'],
    anthropic: [429, 'Number of request tokens has exceeded your per-minute rate limit', 'rate_limit_error'],
    google: [429, 'You exceeded your current quota, please check your plan and billing details.', 'RESOURCE_EXHAUSTED'],
    mistral: [429, 'Requests rate limit exceeded', 'rate_limited'],
    xai: [429, 'Your team has reached its requests per second limit.', 'Some resource has been exhausted'],
  },
  serverError: {
    openai: [500, 'The server had an error while processing your request. Sorry about that!', 'server_error'],
    anthropic: [500, 'Internal server error', 'api_error'],
    google: [500, 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting', 'INTERNAL'],
    mistral: [500, 'Internal server error', 'internal_server_error'],
    xai: [500, 'Internal error', 'Internal error'],
  },
  overloaded: {
    openai: [503, 'The engine is currently overloaded, please try again later', 'server_error'],
    anthropic: [529, 'Overloaded', 'overloaded_error'],
    google: [503, 'The model is overloaded. Please try again later.', 'UNAVAILABLE'],
    mistral: [503, 'Service unavailable', 'service_unavailable'],
    xai: [503, 'The service is currently unavailable', 'Service unavailable'],
  },
};

function errorBody(family: Family, status: number, message: string, label: string, extra: Json = {}): unknown {
  switch (family) {
    case 'openai': return { error: { message, type: label, param: null, code: label } };
    case 'anthropic': return { type: 'error', error: { type: label, message }, request_id: `req_${nextId()}` };
    case 'google': return { error: { code: status, message, status: label, ...extra } };
    case 'mistral': return { object: 'error', message, type: label, param: null, code: null };
    case 'xai': return { code: label, error: message };
  }
}

/** How each provider answers a bad key: most echo part of it, which the service must scrub. */
function keyRejection(provider: string, key: string): WireAnswer {
  const head = (n: number) => key.slice(0, n);
  const tail = (n: number) => key.slice(-n);
  switch (provider) {
    case 'anthropic':
      return { status: 401, body: errorBody('anthropic', 401, 'invalid x-api-key', 'authentication_error') };
    case 'google':
      return { status: 400, body: errorBody('google', 400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', {
        details: [{
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        }],
      }) };
    case 'mistral':
      return { status: 401, body: { detail: 'Unauthorized' } };
    case 'xai':
      return { status: 400, body: errorBody('xai', 400, `Incorrect API key provided: ${head(2)}***${tail(2)}. You can obtain an API key from https://console.x.ai.`, 'Client specified an invalid argument') };
    case 'groq':
      return { status: 401, body: { error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } } };
    case 'deepseek':
      return { status: 401, body: { error: { message: `Authentication Fails, Your api key: ****${tail(4)} is invalid`, type: 'authentication_error', param: null, code: 'invalid_request_error' } } };
    default:
      return { status: 401, body: { error: {
        message: `Incorrect API key provided: ${head(10)}**********${tail(4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: 'invalid_request_error', param: null, code: 'invalid_api_key',
      } } };
  }
}

export interface ErrorOptions {
  key: string;
  /** Replaces the provider's default message. */
  message?: string;
  /** rateLimit: the wait asked for, in seconds. */
  retryAfterSeconds: number;
  /** rateLimit: `retry-after` (most), `retry-after-ms` (OpenAI also sends it) or none. */
  retryAfterHeader: 'seconds' | 'ms' | 'none';
}

export function errorAnswer(provider: string, kind: ErrorKind, options: ErrorOptions): WireAnswer {
  if (kind === 'rejectKey') return keyRejection(provider, options.key);
  const family = familyOf(provider);
  const [status, defaultMessage, label] = ERRORS[kind][family];
  const message = options.message ?? defaultMessage;
  if (kind !== 'rateLimit') return { status, body: errorBody(family, status, message, label) };
  // Google says how long to wait in the body, not in a header.
  if (family === 'google') {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${options.retryAfterSeconds}s` }];
    return { status, body: errorBody(family, status, message, label, { details }) };
  }
  const headers: Record<string, string> =
    options.retryAfterHeader === 'seconds' ? { 'retry-after': String(options.retryAfterSeconds) }
    : options.retryAfterHeader === 'ms' ? { 'retry-after-ms': String(options.retryAfterSeconds * 1000) }
    : {};
  return { status, body: errorBody(family, status, message, label), headers };
}
