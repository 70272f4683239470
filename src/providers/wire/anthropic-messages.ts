import { type Conversation, type ConversationMessage, type FinishReason, systemTexts, type ToolCall, type ToolChoice } from './conversation.js';
import { definedMembers, isRecord, tokenUsage, USER_AGENT, type StreamEvent, type WireFormat } from './wire-format.js';

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

const textLength = ({ messages }: Conversation) => messages.reduce((sum, message) => sum + message.text.length, 0);

/**
 * Anthropic wants a limit where the others default to the model's. A generated answer (a chat
 * completion without `max_tokens`) gets the model's limit, as it would elsewhere.
 * A rewrite is about as long as its input: allow twice the input's
 * characters-per-two tokens, at least 1,024, at most what the model takes.
 * A structured answer is as long as its schema asks, not as its input: a
 * rating with its reason takes about 60 tokens, so at least 4,096 leaves room
 * for some 60 attributes rather than cutting the JSON short.
 */
const maxTokens = (model: string, conversation: Conversation, structured: boolean) =>
  conversation.answerKind === 'generated'
    ? modelOutputLimit(model)
    : Math.min(modelOutputLimit(model), Math.max(structured ? 4_096 : 1_024, Math.ceil(textLength(conversation) / 2)));

/** Anthropic's stop reasons in OpenAI's words. */
function finishReasonOf(reason: unknown): FinishReason {
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (reason === 'tool_use') return 'tool_calls';
  if (reason === 'refusal') return 'content_filter';
  return 'stop';
}

type Block = Record<string, unknown>;
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** A tool call's arguments as the `input` object Anthropic takes; undefined when they are not a JSON object. */
function inputOf(call: ToolCall): Record<string, unknown> | undefined {
  try {
    const input: unknown = JSON.parse(call.arguments);
    return isRecord(input) ? input : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The caller's turns as Anthropic messages. Anthropic has no system role inside `messages`, so
 * the caller's system messages join the persona's in the top-level `system` (systemText). Tool
 * results go back as `tool_result` blocks of a user turn; turns of the same role that follow
 * each other (several tool results, a tool result then the user's text) are merged into one,
 * as Anthropic wants the roles to alternate. A turn of one text block is sent as a string.
 */
function anthropicTurns(messages: ConversationMessage[]): unknown[] {
  const turns: Turn[] = [];
  const add = (role: Turn['role'], blocks: Block[]) => {
    // An assistant turn with neither text nor calls says nothing, and Anthropic refuses empty content.
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        add('user', [{ type: 'text', text: message.text }]);
        break;
      case 'assistant':
        add('assistant', [
          ...(message.text === '' ? [] : [{ type: 'text', text: message.text }]),
          ...(message.toolCalls ?? []).map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call) ?? {} })),
        ]);
        break;
      case 'tool':
        add('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.text }]);
        break;
    }
  }
  return turns.map(({ role, content }) =>
    content.length === 1 && content[0]?.type === 'text' ? { role, content: content[0].text } : { role, content });
}

function toolChoice(choice: ToolChoice): unknown {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: choice === 'required' ? 'any' : choice };
}


/**
 * What Anthropic cannot do: a response format other than text (it has no JSON mode; the forced
 * tool the judge uses would answer with a tool call, not the content a Chat Completions caller
 * expects), a seed, and tool-call arguments that are not a JSON object (`input` must be one).
 */
function refusal({ responseFormat, sampling, messages }: Conversation): string | undefined {
  if (responseFormat && responseFormat.type !== 'text') return `response_format ${responseFormat.type}`;
  if (sampling?.seed !== undefined) return 'seed';
  const call = messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : [])).find((candidate) => inputOf(candidate) === undefined);
  return call && `tool call arguments that are not a JSON object (tool call "${call.id.slice(0, 64)}")`;
}

/**
 * Anthropic Messages API: `POST /messages`, `x-api-key`, `anthropic-version`, system as a top-level field.
 * Structured output is a forced tool call: one tool whose `input_schema` is the schema, and
 * `tool_choice: { type: 'tool', name }`; the answer's `tool_use` block holds the JSON as `input`.
 * A tool call's arguments are the JSON text of its `input`.
 */
export const anthropicMessages: WireFormat = {
  refusal,
  request: (apiKey, model, conversation, stream = false, output) => {
    const { sampling, tools } = conversation;
    return {
      path: '/messages',
      headers: {
        'x-api-key': apiKey,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
      },
      body: JSON.stringify({
        model,
        max_tokens: sampling?.maxTokens ?? maxTokens(model, conversation, output !== undefined),
        system: systemTexts(conversation).join('\n\n'),
        messages: anthropicTurns(conversation.messages),
        ...(stream ? { stream: true } : {}),
        ...(output
          ? { tools: [{ name: output.name, description: output.description, input_schema: output.schema }], tool_choice: { type: 'tool', name: output.name } }
          : {}),
        ...(!output && tools && tools.length > 0
          ? { tools: tools.map((tool) => definedMembers({ name: tool.name, description: tool.description, input_schema: tool.parameters ?? { type: 'object', properties: {} } })) }
          : {}),
        ...definedMembers({
          tool_choice: output || conversation.toolChoice === undefined ? undefined : toolChoice(conversation.toolChoice),
          temperature: sampling?.temperature,
          top_p: sampling?.topP,
          stop_sequences: sampling?.stop,
          metadata: sampling?.user === undefined ? undefined : { user_id: sampling.user },
        }),
      }),
    };
  },
  answer: (answer) => {
    if (!isRecord(answer) || !Array.isArray(answer.content)) return undefined;
    const toolCalls: ToolCall[] = [];
    for (const block of answer.content) {
      if (isRecord(block) && block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
      }
    }
    return { text: blockText(answer) ?? '', toolCalls, finishReason: finishReasonOf(answer.stop_reason) };
  },
  // A forced tool always answers with its tool_use; any text instead is handed on, to fail the schema check.
  structuredText(answer) {
    if (!isRecord(answer) || !Array.isArray(answer.content)) return undefined;
    const call = answer.content.find((block) => isRecord(block) && block.type === 'tool_use');
    return isRecord(call) && call.input !== undefined ? JSON.stringify(call.input) : blockText(answer);
  },
  usage: (answer) => (isRecord(answer) && isRecord(answer.usage) ? anthropicUsage(answer.usage) : undefined),
  /**
   * message_start (input usage) … content_block_start / content_block_delta (text_delta, or a
   * tool_use block and its input_json_delta, numbered by the block's index) … message_delta
   * (stop reason, output usage) … message_stop.
   */
  streamReader: () => (data): StreamEvent | undefined => {
    if (!isRecord(data)) return undefined;
    switch (data.type) {
      case 'content_block_start': {
        const block = data.content_block;
        if (!isRecord(block) || block.type !== 'tool_use' || typeof data.index !== 'number') return undefined;
        return { toolCalls: [{ index: data.index, ...(typeof block.id === 'string' ? { id: block.id } : {}), ...(typeof block.name === 'string' ? { name: block.name } : {}) }] };
      }
      case 'content_block_delta': {
        const { delta } = data;
        if (!isRecord(delta)) return undefined;
        if (delta.type === 'text_delta' && typeof delta.text === 'string') return { text: delta.text };
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && typeof data.index === 'number') {
          return { toolCalls: [{ index: data.index, arguments: delta.partial_json }] };
        }
        return undefined;
      }
      case 'message_start': {
        const usage = isRecord(data.message) && isRecord(data.message.usage) ? data.message.usage : undefined;
        const input = usage ? anthropicUsage(usage, 0)?.inputTokens : undefined;
        return input === undefined ? undefined : { usage: { inputTokens: input } };
      }
      case 'message_delta': {
        const event: StreamEvent = {};
        if (isRecord(data.usage) && typeof data.usage.output_tokens === 'number') event.usage = { outputTokens: data.usage.output_tokens };
        if (isRecord(data.delta) && typeof data.delta.stop_reason === 'string') event.finishReason = finishReasonOf(data.delta.stop_reason);
        return event.usage || event.finishReason ? event : undefined;
      }
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
