/**
 * `client.chatStream(…)`: a completion's chunks as the service streams them (`data: {…}` lines,
 * then `data: [DONE]`), then the completion they add up to. Retried like any POST until its first
 * chunk with text, a tool call or a finish reason arrives, never after (as `refineStream`).
 */
import type { CallScope } from './call-scope.js';
import { chatPersonaHeaders, chatRequest, withHidden } from './chat.js';
import type { ChatCompletion, ChatCompletionChunk, ChatFinishReason, ChatStreamInput, ChatToolCall, ChatUsage } from './chat-types.js';
import { PersonaRefineError } from './errors.js';
import { DEFAULT_MAX_EVENT_BYTES, EventStreamParser, type ServerSentEvent } from './event-stream-parser.js';
import { streamFailure } from './openai-error.js';
import type { PostOptions, Transport } from './transport.js';

/**
 * The completion the chunks add up to, shaped as `chat`'s answer (`usage` only with
 * `includeUsage`), with who answered, the persona version and variant and the request id not enumerable.
 */
export type ChatStreamResult = Omit<ChatCompletion, 'usage'> & { usage?: ChatUsage } & {
  readonly personaVersion: number;
  readonly personaVariant: string | undefined;
  readonly provider: Readonly<{ id: string; model?: string }>;
  readonly requestId: string | undefined;
};

/** One attempt's answer, read up to its first event that counts. */
interface OpenedStream {
  headers: Headers;
  reader: ReadableStreamDefaultReader<Uint8Array>;
  parser: EventStreamParser;
  /** Read while waiting for the first chunk that counts, not handed out yet. */
  events: ServerSentEvent[];
}

/** Iterate it once (`for await`); `result` settles when the stream has ended, however it ended. */
export class ChatStream implements AsyncIterable<ChatCompletionChunk> {
  /** The completion, once the loop is over; rejects with the error the loop threw. */
  readonly result: Promise<ChatStreamResult>;
  private settle!: { resolve: (result: ChatStreamResult) => void; reject: (error: unknown) => void };
  private iterated = false;

  constructor(
    private readonly transport: Transport,
    private readonly input: ChatStreamInput,
    private readonly options: PostOptions = {},
  ) {
    // Checked now, as `chat` checks it: a wrong argument throws where the call is written.
    chatRequest(input, true);
    this.result = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // Whoever only iterates gets the error from the loop; the same one here must not go unhandled.
    this.result.catch(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncGenerator<ChatCompletionChunk, ChatStreamResult, undefined> {
    if (this.iterated) throw new TypeError('a ChatStream can be iterated only once');
    this.iterated = true;
    return this.chunks();
  }

  private async *chunks(): AsyncGenerator<ChatCompletionChunk, ChatStreamResult, undefined> {
    let settled = false;
    let scope: CallScope | undefined;
    try {
      const maxEventBytes = Math.min(this.transport.maxAnswerBytes, DEFAULT_MAX_EVENT_BYTES);
      const open = await this.transport.open(chatRequest(this.input, true), this.options, (response) => openStream(response, maxEventBytes));
      scope = open.scope;
      const { headers, reader, parser } = open.opened;
      const completion = new CompletionBuilder();
      let events = open.opened.events;
      for (let ended = false; ; ) {
        for (const event of events) {
          if (event.data === '[DONE]') {
            const result = withHidden(completion.build(headers), pick(chatPersonaHeaders(headers)));
            settled = true;
            this.settle.resolve(result);
            return result;
          }
          const chunk = chunkOf(event, headers);
          completion.add(chunk);
          yield chunk;
        }
        if (ended) throw cutError(headers, 'it ended without its [DONE]');
        const read = await readChunk(reader, scope, headers);
        ended = read === undefined;
        events = read === undefined ? parser.end() : parser.push(read);
      }
    } catch (error) {
      settled = true;
      this.settle.reject(error);
      throw error;
    } finally {
      // A loop left early (`break`) lands here too: closing the connection stops the provider.
      scope?.close();
      if (!settled) this.settle.reject(new PersonaRefineError({ kind: 'aborted', message: 'the stream was closed before its end' }));
    }
  }
}

const pick = ({ personaVersion, personaVariant, provider, requestId }: ReturnType<typeof chatPersonaHeaders>) => ({ personaVersion, personaVariant, provider, requestId });

/** Whether a chunk shows something: a role-only chunk does not, so a failure after it may still be retried. */
const counts = (event: ServerSentEvent, headers: Headers): boolean => {
  if (event.data === '[DONE]') return true;
  const chunk = chunkOf(event, headers);
  return chunk.choices.some((choice) => Boolean(choice.delta.content) || (choice.delta.tool_calls?.length ?? 0) > 0 || choice.finish_reason !== null) || Boolean(chunk.usage);
};

async function openStream(response: Response, maxEventBytes: number): Promise<OpenedStream> {
  const { headers } = response;
  if (!/^text\/event-stream/.test(headers.get('content-type') ?? '') || !response.body) {
    await response.body?.cancel();
    throw new PersonaRefineError({ kind: 'http', status: response.status, message: `HTTP ${response.status} answer is not an event stream`, requestId: requestIdOf(headers) });
  }
  const reader = response.body.getReader();
  const parser = new EventStreamParser(maxEventBytes);
  const events: ServerSentEvent[] = [];
  try {
    for (;;) {
      const chunk = await reader.read();
      const read = chunk.done ? parser.end() : parser.push(chunk.value);
      // Only data events are kept: endless other ones must not pile up in memory.
      const data = read.filter((candidate) => candidate.event === 'message');
      events.push(...data);
      // An error before anything was shown throws here: the attempt's failure, which may be retried.
      if (data.some((event) => counts(event, headers))) return { headers, reader, parser, events };
      if (chunk.done) throw cutError(headers, 'it ended before its first chunk');
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}

async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>, scope: CallScope, headers: Headers): Promise<Uint8Array | undefined> {
  try {
    const chunk = await reader.read();
    return chunk.done ? undefined : chunk.value;
  } catch (cause) {
    if (scope.signal.aborted) throw scope.abortError();
    const detail = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
    throw cutError(headers, detail, cause);
  }
}

/** The event's chunk; an `{ error }` (OpenAI's mid-stream error) throws it, anything else not a chunk is a PersonaRefineError. */
function chunkOf(event: ServerSentEvent, headers: Headers): ChatCompletionChunk {
  const wrong = (detail: string, cause?: unknown) =>
    new PersonaRefineError({ kind: 'http', status: 200, message: `the stream's chunk ${detail}`, requestId: requestIdOf(headers), cause });
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch (cause) {
    throw wrong('is not valid JSON', cause);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw wrong('is not a JSON object');
  const error = (data as { error?: unknown }).error;
  if (typeof error === 'object' && error !== null) {
    throw new PersonaRefineError({ kind: 'http', ...streamFailure(error as Record<string, unknown>), requestId: requestIdOf(headers) });
  }
  if (!Array.isArray((data as { choices?: unknown }).choices)) throw wrong('has no choices');
  return data as ChatCompletionChunk;
}

function cutError(headers: Headers, detail: string, cause?: unknown): PersonaRefineError {
  return new PersonaRefineError({ kind: 'network', message: `the stream from persona-refine was cut: ${detail}`, requestId: requestIdOf(headers), cause });
}

/** The chunks added up: text joined, tool calls merged by index, the last finish reason, the usage chunk's usage. */
class CompletionBuilder {
  private first: ChatCompletionChunk | undefined;
  private text = '';
  private readonly toolCalls: ChatToolCall[] = [];
  private finishReason: ChatFinishReason | undefined;
  private usage: ChatUsage | undefined;

  add(chunk: ChatCompletionChunk): void {
    this.first ??= chunk;
    if (chunk.usage) this.usage = chunk.usage;
    for (const { delta, finish_reason } of chunk.choices) {
      if (typeof delta.content === 'string') this.text += delta.content;
      for (const part of delta.tool_calls ?? []) {
        const call = (this.toolCalls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += part.function.name;
        if (part.function?.arguments) call.function.arguments += part.function.arguments;
      }
      if (finish_reason) this.finishReason = finish_reason;
    }
  }

  build(headers: Headers): Omit<ChatCompletion, 'usage'> & { usage?: ChatUsage } {
    const toolCalls = this.toolCalls.filter(Boolean);
    if (this.finishReason === undefined) throw new PersonaRefineError({ kind: 'http', status: 200, message: 'the stream ended without a finish reason', requestId: requestIdOf(headers) });
    return {
      id: this.first?.id ?? requestIdOf(headers) ?? '',
      object: 'chat.completion',
      created: this.first?.created ?? Math.floor(Date.now() / 1000),
      model: this.first?.model ?? '',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: this.text === '' && toolCalls.length > 0 ? null : this.text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
          finish_reason: this.finishReason,
        },
      ],
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}

const requestIdOf = (headers: Headers) => headers.get('x-request-id') ?? undefined;
