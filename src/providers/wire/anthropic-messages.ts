import { isRecord, tokenUsage, USER_AGENT, type StreamEvent, type WireFormat } from './wire-format.js';

/**
 * The most output tokens a Claude model accepts. Anthropic requires
 * `max_tokens` and refuses a value above the model's limit; unknown models get
 * 8,192, which every Claude model since 3.5 accepts.
 */
function modelOutputLimit(model: string): number {
  if (/claude-3-(haiku|sonnet|opus)-/.test(model)) return 4_096;
  if (model.includes('claude-3-5-')) return 8_192;
  if (/claude-opus-4-(0|1|2025)/.test(model) || /claude-opus-4$/.test(model)) return 32_000;
  if (/claude-3-7-|claude-(sonnet|haiku|opus)-[4-9]/.test(model)) return 64_000;
  return 8_192;
}

/**
 * A rewrite is about as long as its input: allow twice the input's
 * characters-per-two tokens, at least 1,024, at most what the model takes.
 * A structured answer is as long as its schema asks, not as its input: a
 * rating with its reason takes about 60 tokens, so at least 4,096 leaves room
 * for some 60 attributes rather than cutting the JSON short.
 */
const maxTokens = (model: string, user: string, structured: boolean) =>
  Math.min(modelOutputLimit(model), Math.max(structured ? 4_096 : 1_024, Math.ceil(user.length / 2)));

/**
 * Anthropic Messages API: `POST /messages`, `x-api-key`, `anthropic-version`, system as a top-level field.
 * Structured output is a forced tool call: one tool whose `input_schema` is the schema, and
 * `tool_choice: { type: 'tool', name }`; the answer's `tool_use` block holds the JSON as `input`.
 */
export const anthropicMessages: WireFormat = {
  request: (apiKey, model, system, user, stream = false, output) => ({
    path: '/messages',
    headers: {
      'x-api-key': apiKey,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
    },
    body: JSON.stringify({
      model,
      max_tokens: maxTokens(model, user, output !== undefined),
      system,
      messages: [{ role: 'user', content: user }],
      ...(stream ? { stream: true } : {}),
      ...(output
        ? { tools: [{ name: output.name, description: output.description, input_schema: output.schema }], tool_choice: { type: 'tool', name: output.name } }
        : {}),
    }),
  }),
  text: blockText,
  // A forced tool always answers with its tool_use; any text instead is handed on, to fail the schema check.
  structuredText(answer) {
    if (!isRecord(answer) || !Array.isArray(answer.content)) return undefined;
    const call = answer.content.find((block) => isRecord(block) && block.type === 'tool_use');
    return isRecord(call) && call.input !== undefined ? JSON.stringify(call.input) : blockText(answer);
  },
  usage: (answer) => (isRecord(answer) && isRecord(answer.usage) ? anthropicUsage(answer.usage) : undefined),
  // message_start (input usage) … content_block_delta/text_delta … message_delta (output usage) … message_stop.
  streamEvent(data): StreamEvent | undefined {
    if (!isRecord(data)) return undefined;
    switch (data.type) {
      case 'content_block_delta':
        return isRecord(data.delta) && data.delta.type === 'text_delta' && typeof data.delta.text === 'string' ? { text: data.delta.text } : undefined;
      case 'message_start': {
        const usage = isRecord(data.message) && isRecord(data.message.usage) ? data.message.usage : undefined;
        const input = usage ? anthropicUsage(usage, 0)?.inputTokens : undefined;
        return input === undefined ? undefined : { usage: { inputTokens: input } };
      }
      case 'message_delta':
        return isRecord(data.usage) && typeof data.usage.output_tokens === 'number' ? { usage: { outputTokens: data.usage.output_tokens } } : undefined;
      case 'message_stop':
        return { end: true };
      case 'error': {
        const type = isRecord(data.error) ? data.error.type : undefined;
        return { error: { status: STREAM_ERROR_STATUS[String(type)] ?? 500, body: JSON.stringify(data) } };
      }
      default:
        return undefined;
    }
  },
};

function blockText(answer: unknown): string | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.content)) return undefined;
  let text = '';
  for (const block of answer.content) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') text += block.text;
  }
  return text;
}

/** The HTTP status each Anthropic error type is answered with, for the same error inside a stream. */
const STREAM_ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; they are input all
 * the same, so they are added (the other APIs' input counts include cached tokens).
 */
export function anthropicUsage(usage: Record<string, unknown>, outputTokens: unknown = usage.output_tokens) {
  const cached = (n: unknown) => (typeof n === 'number' ? n : 0);
  const input = typeof usage.input_tokens === 'number' ? usage.input_tokens + cached(usage.cache_creation_input_tokens) + cached(usage.cache_read_input_tokens) : undefined;
  return tokenUsage(input, outputTokens);
}
