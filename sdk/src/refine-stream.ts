/**
 * `client.refineStream(…)`: the refined text piece by piece as the service streams it, then the
 * final result. Retried like any POST until its first piece arrives, never after: a piece
 * already shown cannot be taken back, and a second run would not repeat it word for word.
 */
import type { CallScope } from './call-scope.js';
import { PersonaRefineError } from './errors.js';
import { DEFAULT_MAX_EVENT_BYTES, EventStreamParser, type ServerSentEvent } from './event-stream-parser.js';
import type { components } from './generated/openapi.js';
import type { PostOptions, Transport } from './transport.js';
import type { JudgeVerdict, RefineInput, RefineResult } from './types.js';

export type RefineStreamInput = Omit<RefineInput, 'stream'>;
type StreamDone = components['schemas']['StreamDone'];
type StreamDelta = components['schemas']['StreamDelta'];

/**
 * A streamed refine's result: `{ response }` like `refine`'s, with `violations` (no repair call
 * on a stream: what only the model can fix is reported here), `usage` (the tokens the provider
 * reported, `{}` when it reported none), `score` (`done.score`), `judge` (`done.judge`), `personaVersion`,
 * `personaVariant`, `requestId` and `replaced` non-enumerable.
 * `response` is always the whole result; `replaced` is true only when the pieces that were
 * yielded are not a prefix of it (a service bug the server logs and counts): use `response`.
 */
export type RefineStreamResult = Pick<RefineResult, 'response' | 'violations' | 'personaVersion' | 'personaVariant' | 'score' | 'requestId'> & {
  readonly usage: Readonly<StreamDone['usage']>;
  /**
   * With `judge`: the verdict on the final text, `{ provider, model, ratings }` (each rating with
   * its reason, which the headers of a refine not streamed cannot carry) or `{ error }` when the
   * judge failed (the refine itself succeeded); undefined when not judged.
   */
  readonly judge: Readonly<JudgeVerdict> | undefined;
  readonly replaced: boolean;
};

interface OpenedStream {
  headers: Headers;
  reader: ReadableStreamDefaultReader<Uint8Array>;
  parser: EventStreamParser;
  /** Read while waiting for the first piece, not handed out yet. */
  events: ServerSentEvent[];
}

/** Iterate it once (`for await`); `result` settles when the stream has ended, however it ended. */
export class RefineStream implements AsyncIterable<string> {
  /** The final result, once the loop is over; rejects with the error the loop threw. */
  readonly result: Promise<RefineStreamResult>;
  private settle!: { resolve: (result: RefineStreamResult) => void; reject: (error: unknown) => void };
  private iterated = false;

  constructor(
    private readonly transport: Transport,
    private readonly input: RefineStreamInput,
    private readonly options: PostOptions = {},
  ) {
    this.result = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // Whoever only iterates gets the error from the loop; the same one here must not go unhandled.
    this.result.catch(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncGenerator<string, RefineStreamResult, undefined> {
    if (this.iterated) throw new TypeError('a RefineStream can be iterated only once');
    this.iterated = true;
    return this.pieces();
  }

  private async *pieces(): AsyncGenerator<string, RefineStreamResult, undefined> {
    let settled = false;
    let scope: CallScope | undefined;
    try {
      const request = { method: 'POST' as const, path: '/refine', body: { ...this.input, stream: true }, headers: { accept: 'text/event-stream' } };
      // The client's maxAnswerBytes bounds a stream's event too, when it is below the parser's own bound.
      const maxEventBytes = Math.min(this.transport.maxAnswerBytes, DEFAULT_MAX_EVENT_BYTES);
      const open = await this.transport.open(request, this.options, (response) => openStream(response, maxEventBytes));
      scope = open.scope;
      const { headers, reader, parser } = open.opened;
      let events = open.opened.events;
      for (let ended = false; ; ) {
        for (const event of events) {
          if (event.event === 'delta') yield parseData<StreamDelta>(event, headers, 'text').text;
          else if (event.event === 'done') {
            const result = resultOf(parseData<StreamDone>(event, headers, 'response'), headers);
            settled = true;
            this.settle.resolve(result);
            return result;
          } else if (event.event === 'error') throw errorOf(event, headers);
        }
        if (ended) throw cutError(headers, 'it ended without its done event');
        const chunk = await readChunk(reader, scope, headers);
        ended = chunk === undefined;
        events = chunk === undefined ? parser.end() : parser.push(chunk);
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

/** One attempt's answer, read up to its first event that counts: an `error` first is the attempt's failure (and may be retried). */
const COUNTED = new Set(['delta', 'done', 'error']);

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
      // Only the events that count are kept: endless unknown ones must not pile up in memory.
      events.push(...read.filter((event) => COUNTED.has(event.event)));
      const first = events.find((event) => event.event === 'delta' || event.event === 'done' || event.event === 'error');
      if (first?.event === 'error') throw errorOf(first, headers);
      if (first) return { headers, reader, parser, events };
      if (chunk.done) throw cutError(headers, 'it ended before its first event');
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

/** The event's JSON object; anything else (not JSON, null, a string, a delta without text…) is a PersonaRefineError. */
function parseData<T>(event: ServerSentEvent, headers: Headers, required: string): T {
  const wrong = (detail: string, cause?: unknown) =>
    new PersonaRefineError({ kind: 'http', status: 200, message: `the stream's ${event.event} event ${detail}`, requestId: requestIdOf(headers), cause });
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch (cause) {
    throw wrong('is not valid JSON', cause);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw wrong('is not a JSON object');
  if (required !== '' && typeof (data as Record<string, unknown>)[required] !== 'string') throw wrong(`has no "${required}" text`);
  return data as T;
}

/** The `error` event carries the status and message the same failure gets without streaming. */
function errorOf(event: ServerSentEvent, headers: Headers): PersonaRefineError {
  const data = parseData<{ error?: unknown; message?: unknown }>(event, headers, '');
  const message = typeof data.message === 'string' ? data.message : 'the stream failed';
  return new PersonaRefineError({
    kind: 'http',
    status: typeof data.error === 'number' ? data.error : 500,
    message,
    // Without streaming this is the X-Error-Source header; on a stream the message's prefix says it.
    source: message.startsWith('provider "') ? 'provider' : 'service',
    requestId: requestIdOf(headers),
  });
}

function cutError(headers: Headers, detail: string, cause?: unknown): PersonaRefineError {
  return new PersonaRefineError({ kind: 'network', message: `the stream from persona-refine was cut: ${detail}`, requestId: requestIdOf(headers), cause });
}

function resultOf(done: StreamDone, headers: Headers): RefineStreamResult {
  const result = { response: done.response };
  return Object.defineProperties(result, {
    violations: { value: done.violations ?? {}, enumerable: false },
    usage: { value: done.usage ?? {}, enumerable: false },
    score: { value: typeof done.score === 'number' ? done.score : undefined, enumerable: false },
    // A judge that is not an object is a server's mistake, read as "not judged", as a score that is not a number is.
    judge: { value: isObject(done.judge) ? done.judge : undefined, enumerable: false },
    personaVersion: { value: Number(headers.get('x-persona-version')), enumerable: false },
    personaVariant: { value: headers.get('x-persona-variant') ?? undefined, enumerable: false },
    replaced: { value: (done as { replaced?: boolean }).replaced === true, enumerable: false },
    requestId: { value: requestIdOf(headers), enumerable: false },
  }) as RefineStreamResult;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

const requestIdOf = (headers: Headers) => headers.get('x-request-id') ?? undefined;
