/**
 * Reads a text/event-stream body as it arrives. The network splits it anywhere: inside an
 * event, inside a line, between a CR and its LF, inside a multi-byte character. Comment lines
 * (`: keep-alive`) and fields other than `event` and `data` are skipped, as the format says.
 */

export interface ServerSentEvent {
  /** `message` when the event names none. */
  event: string;
  /** The event's `data` lines, joined with `\n`. */
  data: string;
}

export class EventStreamParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private event = '';
  private data: string[] = [];

  /** The events completed by this chunk, in order. */
  push(chunk: Uint8Array): ServerSentEvent[] {
    // `stream: true` keeps a character's leading bytes until the chunk that completes it.
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The events completed at the end of the body (an unterminated last event is dropped, as the format says). */
  end(): ServerSentEvent[] {
    return this.feed(this.decoder.decode(), true);
  }

  private feed(text: string, final = false): ServerSentEvent[] {
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (;;) {
      const end = this.lineEnd(start, final);
      if (end === -1) break;
      const line = this.buffer.slice(start, end);
      start = end + (this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1);
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** Where the line starting at `from` ends, or -1 while it may still go on (a CR last may be half a CRLF, unless the body ended). */
  private lineEnd(from: number, final: boolean): number {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c === '\n') return i;
      if (c === '\r') return i + 1 < this.buffer.length || final ? i : -1;
    }
    return -1;
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
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return undefined;
  }
}
