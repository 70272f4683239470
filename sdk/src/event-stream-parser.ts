/**
 * Reads a text/event-stream body as it arrives. The network splits it anywhere: inside an
 * event, inside a line, between a CR and its LF, inside a multi-byte character. Comment lines
 * (`: keep-alive`) and fields other than `event` and `data` are skipped, as the format says.
 *
 * Linear in the bytes received: each chunk is scanned once, and an unfinished line is kept as a
 * list of pieces, never rescanned. Bounded: a line, or an event's data, longer than
 * `maxEventBytes` (counted in UTF-16 units, close enough to bytes for a bound) throws
 * AnswerTooLargeError, so a server that never ends a line cannot fill the memory.
 */
import { AnswerTooLargeError } from './errors.js';

export interface ServerSentEvent {
  /** `message` when the event names none. */
  event: string;
  /** The event's `data` lines, joined with `\n`. */
  data: string;
}

/** 16 MiB: a `done` event carries the whole refined text, which is far smaller. */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

const LINE_BREAK = /[\r\n]/g;

export class EventStreamParser {
  private readonly decoder = new TextDecoder();
  /** The current line's pieces so far, and their total length. */
  private pending: string[] = [];
  private pendingLength = 0;
  /** The last chunk ended with a CR: an LF starting the next one belongs to it. */
  private afterCR = false;
  private event = '';
  private data: string[] = [];
  private dataLength = 0;

  constructor(private readonly maxEventBytes: number = DEFAULT_MAX_EVENT_BYTES) {}

  /** The events completed by this chunk, in order. */
  push(chunk: Uint8Array): ServerSentEvent[] {
    // `stream: true` keeps a character's leading bytes until the chunk that completes it.
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The events completed at the end of the body (an unterminated last event is dropped, as the format says). */
  end(): ServerSentEvent[] {
    const events = this.feed(this.decoder.decode());
    // A last line without its line break is not a complete line: dropped with its event.
    this.pending = [];
    this.pendingLength = 0;
    return events;
  }

  private feed(text: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let start = 0;
    if (this.afterCR && text.startsWith('\n')) start = 1;
    if (text !== '') this.afterCR = false;
    LINE_BREAK.lastIndex = start;
    for (let match = LINE_BREAK.exec(text); match; match = LINE_BREAK.exec(text)) {
      const end = match.index;
      const line = this.take(text.slice(start, end));
      start = end + 1;
      if (text[end] === '\r') {
        if (start === text.length) this.afterCR = true;
        else if (text[start] === '\n') start++;
        LINE_BREAK.lastIndex = start;
      }
      const event = this.line(line);
      if (event) events.push(event);
    }
    if (start < text.length) this.keep(text.slice(start));
    return events;
  }

  /** The pending pieces and `last` as one line; the pending pieces are emptied. */
  private take(last: string): string {
    if (this.pending.length === 0) {
      this.guard(last.length, 'a line');
      return last;
    }
    this.keep(last);
    const line = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    return line;
  }

  private keep(piece: string): void {
    this.pending.push(piece);
    this.pendingLength += piece.length;
    this.guard(this.pendingLength, 'a line');
  }

  private guard(length: number, what: string): void {
    if (length > this.maxEventBytes) throw new AnswerTooLargeError({ what: `${what} of the event stream`, limitBytes: this.maxEventBytes, status: 200 });
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return undefined;
      }
      const event = { event: this.event || 'message', data: this.data.join('\n') };
      this.event = '';
      this.data = [];
      this.dataLength = 0;
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') {
      this.dataLength += value.length + 1;
      this.guard(this.dataLength, 'an event');
      this.data.push(value);
    }
    return undefined;
  }
}
