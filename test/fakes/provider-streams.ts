/**
 * Streamed answers as each provider puts them on the wire (server-sent events), from
 * their API references: OpenAI Responses, Chat Completions, Anthropic Messages and
 * Google streamGenerateContent?alt=sse. Used by provider-server.ts.
 */
import type { WireApi } from './provider-wire-formats.js';

const event = (name: string | undefined, data: unknown) =>
  `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

let sequence = 0;
const nextId = () => `fakestream${(++sequence).toString(36).padStart(6, '0')}`;
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export interface StreamScript {
  /** Events before the first text piece. */
  head: string[];
  /** One event per text piece. */
  pieces: string[];
  /** Events after the last piece, ending with the provider's end marker. */
  tail: string[];
  /** The provider's error event, sent instead of the rest in `streamError` mode. */
  error: string;
}

/** The events of a streamed answer that says `pieces` in order. */
export function streamScript(
  api: WireApi, provider: string, model: string, userText: string, pieces: string[], askedForUsage: boolean, errorMessage?: string,
): StreamScript {
  const said = (fallback: string) => errorMessage ?? fallback;
  const id = nextId();
  const text = pieces.join('');
  const input = tokens(userText);
  const output = tokens(text);
  switch (api) {
    case 'openai-responses': {
      const response = (status: string, extra: Record<string, unknown> = {}) => ({ id: `resp_${id}`, object: 'response', status, model, store: false, ...extra });
      let n = 0;
      return {
        head: [event('response.created', { type: 'response.created', sequence_number: n++, response: response('in_progress', { output: [] }) })],
        pieces: pieces.map((delta) =>
          event('response.output_text.delta', { type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta, logprobs: [], sequence_number: n++ })),
        tail: [
          event('response.output_text.done', { type: 'response.output_text.done', item_id: `msg_${id}`, output_index: 0, content_index: 0, text, sequence_number: n++ }),
          event('response.completed', {
            type: 'response.completed', sequence_number: n++,
            response: response('completed', {
              output: [{ type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
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
      const last = provider === 'mistral' ? chunk({}, 'stop', { usage }) : chunk({}, 'stop');
      const usageChunk = askedForUsage && provider !== 'mistral' ? [event(undefined, { ...chunk({}, null), choices: [], usage })] : [];
      return {
        head: [event(undefined, chunk({ role: 'assistant', content: '' }, null))],
        pieces: pieces.map((content) => event(undefined, chunk({ content }, null))),
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
          event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          event('ping', { type: 'ping' }),
        ],
        pieces: pieces.map((piece) => event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } })),
        tail: [
          event('content_block_stop', { type: 'content_block_stop', index: 0 }),
          event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: output } }),
          event('message_stop', { type: 'message_stop' }),
        ],
        error: event('error', { type: 'error', error: { type: 'overloaded_error', message: said('Overloaded') } }),
      };
    case 'google-generate-content': {
      const chunk = (piece: string, finish?: string, outputSoFar = 0) => ({
        candidates: [{ content: { parts: [{ text: piece }], role: 'model' }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
        usageMetadata: { promptTokenCount: input, candidatesTokenCount: outputSoFar, totalTokenCount: input + outputSoFar },
        modelVersion: model, responseId: id,
      });
      const all = pieces.slice(0, -1).map((piece) => event(undefined, chunk(piece)));
      // Google's last chunk carries the last text, the finishReason and the final usage.
      const lastPiece = event(undefined, chunk(pieces.at(-1) ?? '', 'STOP', output));
      return {
        head: [],
        pieces: [...all, lastPiece],
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
