/**
 * One streamed attempt. Until its first token (text, or a part of a tool call) it is classified exactly like a
 * whole-answer attempt (attempt.ts), so an error status, a refused key, a rate limit, a
 * cut or an error event before any text is retried or answered as JSON like any other
 * failure. From the first token on, the text is the caller's: a later failure ends the
 * stream with the DomainError that failure would have been.
 */
import {
  type Attempt, type AttemptTarget, type Prompt, type ProviderFailure,
  classified, cutShortFailure, errorAnswerFailure, isSuccess, MAX_ANSWER_BYTES, readCapped, unusableAnswer,
} from './attempt.js';
import { ServerSentEventParser, StreamTooLargeError } from './wire/server-sent-events.js';
import type { HttpResponse } from './wire/transport.js';
import type { FinishReason, ToolCallDelta } from './wire/conversation.js';
import { reportedTokens, type StreamReader, type TokenUsage } from './wire/wire-format.js';

/** A piece of a streamed answer: text, or a part of a tool call. */
export type AnswerPiece = string | ToolCallDelta;

export interface StreamedText {
  /**
   * The answer's first pieces: what arrived up to and including the network chunk whose text
   * holds more than whitespace or that holds a part of a tool call: its text as one piece (if
   * any), then its parts of tool calls.
   */
  first: AnswerPiece[];
  /**
   * The pieces after the first, a network chunk at a time: the text of all its events as one
   * piece, then their parts of tool calls. Throws the failure's DomainError if the stream breaks.
   */
  rest: AsyncGenerator<AnswerPiece, void, undefined>;
  /**
   * The tokens the provider reported so far (some report input at the start, output at the end):
   * a stream cut early still counts what was reported. A member is absent while unreported.
   */
  usage(): Partial<TokenUsage>;
  /** Why the model stopped, once the provider said (near the end). */
  finishReason(): FinishReason | undefined;
}

/** What one network chunk said: the text of its events joined, their parts of tool calls, and how the stream ended, if it did. */
interface Batch {
  text: string;
  toolCalls: ToolCallDelta[];
  end?: { failure: ProviderFailure } | 'done';
}

/** What a stream reported besides its pieces, updated as its events arrive. */
interface Reported {
  usage: Partial<TokenUsage>;
  finishReason?: FinishReason;
}

/** Reads the events of one chunk into `batch`; the end, if one of them ended the stream (the events after it are not read). */
function readEvents(target: AttemptTarget, status: number, read: StreamReader, events: string[], reported: Reported, batch: Batch): Batch['end'] {
  for (const data of events) {
    let json: unknown = data;
    if (data !== '[DONE]') {
      try {
        json = JSON.parse(data);
      } catch {
        return { failure: unusableAnswer(target, status, 'not_json') };
      }
    }
    const event = read(json);
    if (event === undefined) continue;
    if (event.usage) Object.assign(reported.usage, event.usage);
    if (event.finishReason) reported.finishReason = event.finishReason;
    if (event.error) return { failure: errorAnswerFailure(target, event.error.status, undefined, event.error.body) };
    if (event.text) batch.text += event.text;
    if (event.toolCalls) batch.toolCalls.push(...event.toolCalls);
    if (event.end) return 'done';
  }
  return undefined;
}

/**
 * The stream a network chunk at a time; the last batch says how it ended. Written by hand rather
 * than as an async generator: a chunk then costs one read of the body and one promise, not a
 * generator's round of them, and a provider's stream may hold thousands of chunks.
 */
class Batches {
  private readonly chunks: AsyncIterator<Uint8Array>;
  private readonly read: StreamReader;
  private readonly parser = new ServerSentEventParser(MAX_ANSWER_BYTES);

  constructor(
    private readonly target: AttemptTarget,
    private readonly response: HttpResponse,
    private readonly reported: Reported,
  ) {
    this.chunks = response.body[Symbol.asyncIterator]();
    this.read = target.wire.streamReader();
  }

  /** The next chunk that says something; throws what reading the body throws (a broken connection). */
  async next(): Promise<Batch> {
    const { target, response } = this;
    for (;;) {
      const chunk = await this.chunks.next();
      // The body ended without the provider's end marker: the answer was cut short.
      if (chunk.done) return { text: '', toolCalls: [], end: { failure: cutShortFailure(target) } };
      const batch: Batch = { text: '', toolCalls: [] };
      let end: Batch['end'];
      try {
        end = readEvents(target, response.status, this.read, this.parser.push(chunk.value), this.reported, batch);
      } catch (error) {
        if (!(error instanceof StreamTooLargeError)) throw error;
        return { text: '', toolCalls: [], end: { failure: unusableAnswer(target, response.status, 'too_large') } };
      }
      if (end) return { ...batch, end };
      if (batch.text !== '' || batch.toolCalls.length > 0) return batch;
    }
  }

  /** Stops reading: closes the body, which frees or drops the connection. */
  async close(): Promise<void> {
    await this.chunks.return?.();
  }
}

const piecesOf = ({ text, toolCalls }: Batch): AnswerPiece[] => (text === '' ? toolCalls : [text, ...toolCalls]);

/** A streamed attempt: resolves once the answer holds more than whitespace or a tool call, or with the failure before that. */
export function streamedAttempt(target: AttemptTarget, prompt: Prompt): Attempt<StreamedText> {
  const request = target.wire.request(target.apiKey, prompt.model, prompt.conversation, true);
  return (signal) =>
    classified(target, signal, async () => {
      const response = await target.transport(target.baseUrl, request, signal);
      if (!isSuccess(response)) {
        const raw = await readCapped(response.body);
        const failure = raw === undefined ? unusableAnswer(target, response.status, 'too_large') : errorAnswerFailure(target, response.status, response.headers, raw);
        return { ok: false, failure };
      }
      const reported: Reported = { usage: {} };
      const chunks = new Batches(target, response, reported);
      let text = '';
      for (;;) {
        let batch: Batch;
        try {
          batch = await chunks.next();
        } catch (error) {
          await chunks.close();
          throw error;
        }
        text += batch.text;
        if (text.trim() !== '' || batch.toolCalls.length > 0) {
          const first = piecesOf({ text, toolCalls: batch.toolCalls });
          // A failure in the chunk that brought the first text is the stream's, after that text: the rest throws it.
          return { ok: true, value: { first, rest: rest(chunks, batch.end), usage: () => reportedTokens(reported.usage), finishReason: () => reported.finishReason } };
        }
        const failure = batch.end === 'done' ? unusableAnswer(target, response.status, 'no_text') : batch.end?.failure;
        if (failure) {
          await chunks.close();
          return { ok: false, failure };
        }
      }
    });
}

/** The pieces after the first, by hand for the same reason as Batches: one promise per chunk. */
function rest(chunks: Batches, ended: Batch['end']): AsyncGenerator<AnswerPiece, void, undefined> {
  let queue: AnswerPiece[] = [];
  let at = 0;
  let end = ended;
  let open = true;
  // Stopping early (the caller went away) closes the body, which frees or drops the connection.
  const close = async () => {
    if (!open) return;
    open = false;
    await chunks.close();
  };
  return closingPieces(close, async () => {
    try {
      while (at === queue.length && end === undefined && open) {
        const batch = await chunks.next();
        queue = piecesOf(batch);
        at = 0;
        end = batch.end;
      }
    } catch (error) {
      await close();
      throw error;
    }
    if (at < queue.length) return { done: false, value: queue[at++] as AnswerPiece };
    await close();
    if (end === undefined || end === 'done') return FINISHED;
    const { error } = end.failure;
    end = 'done';
    throw error;
  });
}

export const FINISHED: IteratorReturnResult<void> = { done: true, value: undefined };

/**
 * Answer pieces as an async generator written by hand (an async generator function costs a round
 * of promises per piece): `next` gives each piece or FINISHED; stopping early, or a throw into it,
 * runs `close` first.
 */
export function closingPieces(close: () => Promise<void>, next: () => Promise<IteratorResult<AnswerPiece, void>>): AsyncGenerator<AnswerPiece, void, undefined> {
  const pieces: AsyncGenerator<AnswerPiece, void, undefined> = {
    next,
    async return() {
      await close();
      return FINISHED;
    },
    async throw(error: unknown) {
      await close();
      throw error;
    },
    [Symbol.asyncIterator]: () => pieces,
  };
  return pieces;
}
