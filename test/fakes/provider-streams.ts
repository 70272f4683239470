/**
 * Streamed answers as each provider puts them on the wire (server-sent events), from
 * their API references: OpenAI Responses, Chat Completions, Anthropic Messages and
 * Google streamGenerateContent?alt=sse. Used by provider-server.ts.
 */
import { type AnswerShape, type FakeToolCall, toolCallId } from './provider-tool-calls.js';
import type { WireApi } from './provider-wire-formats.js';

const event = (name: string | undefined, data: unknown) =>
  `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

let sequence = 0;
const nextId = () => `fakestream${(++sequence).toString(36).padStart(6, '0')}`;
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export interface StreamScript {
  /** Events before the first text piece. */
  head: string[];
  /** One event per text piece, then the tool calls' events (a tool call's arguments come in `argumentChars` pieces). */
  pieces: string[];
  /** Events after the last piece, ending with the provider's end marker. */
  tail: string[];
  /** The provider's error event, sent instead of the rest in `streamError` mode. */
  error: string;
}

/** A tool call's arguments as the JSON text a stream sends in pieces. */
const argumentPieces = (call: FakeToolCall, size: number) => piecesOf(JSON.stringify(call.arguments), size);

/** The events of a streamed answer that says `pieces` in order, then makes the shape's tool calls. */
export function streamScript(
  api: WireApi, provider: string, model: string, userText: string, pieces: string[], askedForUsage: boolean, errorMessage?: string,
  { toolCalls = [], truncated = false }: AnswerShape = {}, argumentChars = 3,
): StreamScript {
  const said = (fallback: string) => errorMessage ?? fallback;
  const id = nextId();
  const text = pieces.join('');
  const called = toolCalls.length > 0;
  // An answer of tool calls alone has no text part at all (a text-only answer keeps one, even empty).
  const textless = text === '' && called;
  const input = tokens(userText);
  const output = tokens(text);
  switch (api) {
    case 'openai-responses': {
      const response = (status: string, extra: Record<string, unknown> = {}) => ({ id: `resp_${id}`, object: 'response', status, model, store: false, ...extra });
      let n = 0;
      // The message is output item 0 when there is text; each function call is an item of its own after it.
      const first = textless ? 0 : 1;
      const calls = toolCalls.map((call, i) => ({
        type: 'function_call', id: `fc_${id}_${i}`, call_id: toolCallId('call_'), name: call.name, arguments: JSON.stringify(call.arguments), status: 'completed',
      }));
      const callEvents = calls.flatMap((item, i) => {
        const output_index = first + i;
        return [
          event('response.output_item.added', { type: 'response.output_item.added', output_index, item: { ...item, arguments: '', status: 'in_progress' }, sequence_number: n++ }),
          ...argumentPieces(toolCalls[i] as FakeToolCall, argumentChars).map((delta) =>
            event('response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: item.id, output_index, delta, sequence_number: n++ })),
          event('response.function_call_arguments.done', { type: 'response.function_call_arguments.done', item_id: item.id, output_index, arguments: item.arguments, sequence_number: n++ }),
          event('response.output_item.done', { type: 'response.output_item.done', output_index, item, sequence_number: n++ }),
        ];
      });
      const message = { type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
      const end = truncated ? 'response.incomplete' : 'response.completed';
      return {
        head: [event('response.created', { type: 'response.created', sequence_number: n++, response: response('in_progress', { output: [] }) })],
        pieces: [
          ...(textless ? [] : pieces).map((delta) =>
            event('response.output_text.delta', { type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta, logprobs: [], sequence_number: n++ })),
          ...callEvents,
        ],
        tail: [
          ...(textless ? [] : [event('response.output_text.done', { type: 'response.output_text.done', item_id: `msg_${id}`, output_index: 0, content_index: 0, text, sequence_number: n++ })]),
          event(end, {
            type: end, sequence_number: n++,
            response: response(truncated ? 'incomplete' : 'completed', {
              output: [...(textless ? [] : [message]), ...calls],
              ...(truncated ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
              usage: { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output },
            }),
          }),
        ],
        error: event('response.failed', {
          type: 'response.failed', sequence_number: n++,
          response: response('failed', { error: { code: 'server_error', message: said('The server had an error while processing your request. Sorry about that!') } }),
        }),
      };
    }
    case 'openai-chat': {
      const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
        id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 1_760_000_000, model, system_fingerprint: 'fp_fake',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra,
      });
      const usage = { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
      // Mistral puts usage in its last chunk unasked; OpenAI and most others send a usage chunk only when asked.
      const finish = truncated ? 'length' : called ? 'tool_calls' : 'stop';
      const last = provider === 'mistral' ? chunk({}, finish, { usage }) : chunk({}, finish);
      const usageChunk = askedForUsage && provider !== 'mistral' ? [event(undefined, { ...chunk({}, null), choices: [], usage })] : [];
      // A call's first delta names it (id, name, no arguments yet); the next ones bring its arguments.
      const callEvents = toolCalls.flatMap((call, index) => [
        event(undefined, chunk({ tool_calls: [{ index, id: toolCallId('call_'), type: 'function', function: { name: call.name, arguments: '' } }] }, null)),
        ...argumentPieces(call, argumentChars).map((piece) => event(undefined, chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null))),
      ]);
      return {
        head: [event(undefined, chunk({ role: 'assistant', content: textless ? null : '' }, null))],
        pieces: [...(textless ? [] : pieces).map((content) => event(undefined, chunk({ content }, null))), ...callEvents],
        tail: [event(undefined, last), ...usageChunk, event(undefined, '[DONE]')],
        error: event(undefined, { error: { message: said('The server had an error while processing your request. Sorry about that!'), type: 'server_error', param: null, code: null } }),
      };
    }
    case 'anthropic-messages':
      return {
        head: [
          event('message_start', {
            type: 'message_start',
            message: {
              id: `msg_${id}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
              usage: { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
            },
          }),
          ...(textless ? [] : [event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })]),
          event('ping', { type: 'ping' }),
        ],
        // The text is block 0 when there is text; each tool_use is a block of its own after it.
        pieces: [
          ...(textless ? [] : pieces).map((piece) => event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } })),
          ...(!textless && called ? [event('content_block_stop', { type: 'content_block_stop', index: 0 })] : []),
          ...toolCalls.flatMap((call, i) => {
            const index = (textless ? 0 : 1) + i;
            return [
              event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolCallId('toolu_'), name: call.name, input: {} } }),
              ...argumentPieces(call, argumentChars).map((partial_json) =>
                event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })),
              event('content_block_stop', { type: 'content_block_stop', index }),
            ];
          }),
        ],
        tail: [
          ...(!called ? [event('content_block_stop', { type: 'content_block_stop', index: 0 })] : []),
          event('message_delta', {
            type: 'message_delta', delta: { stop_reason: truncated ? 'max_tokens' : called ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: output },
          }),
          event('message_stop', { type: 'message_stop' }),
        ],
        error: event('error', { type: 'error', error: { type: 'overloaded_error', message: said('Overloaded') } }),
      };
    case 'google-generate-content': {
      const chunk = (parts: unknown[], finish?: string, outputSoFar = 0) => ({
        candidates: [{ content: { parts, role: 'model' }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
        usageMetadata: { promptTokenCount: input, candidatesTokenCount: outputSoFar, totalTokenCount: input + outputSoFar },
        modelVersion: model, responseId: id,
      });
      const finish = truncated ? 'MAX_TOKENS' : 'STOP';
      // Function calls come whole, one chunk each; Google's last chunk carries the finishReason and the final usage.
      const parts = [
        ...(textless ? [] : pieces).map((piece) => [{ text: piece }]),
        ...toolCalls.map((call) => [{ functionCall: { name: call.name, args: call.arguments } }]),
      ];
      return {
        head: [],
        pieces: parts.map((part, i) => event(undefined, i === parts.length - 1 ? chunk(part, finish, output) : chunk(part))),
        tail: [],
        error: event(undefined, { error: { code: 503, message: said('The model is overloaded. Please try again later.'), status: 'UNAVAILABLE' } }),
      };
    }
  }
}

/** Splits a text into pieces of `size` characters (whole code points, as providers send them). */
export function piecesOf(text: string, size: number): string[] {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces.length > 0 ? pieces : [''];
}

/**
 * An event's bytes as two network writes, cut one byte past the middle: over a text
 * with multi-byte characters, cuts land inside characters as well as between them.
 */
export function byteHalves(eventText: string): Buffer[] {
  const bytes = Buffer.from(eventText, 'utf8');
  const cut = Math.min(bytes.length - 1, (bytes.length >> 1) + 1);
  return cut > 0 ? [bytes.subarray(0, cut), bytes.subarray(cut)] : [bytes];
}
