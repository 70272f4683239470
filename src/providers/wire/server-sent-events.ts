/**
 * Reads a text/event-stream body into the `data` of each event (WHATWG server-sent
 * events: lines ending in LF, CR or CRLF; `data:` lines joined with LF; comments and
 * other fields ignored). Bytes are decoded as a stream, so a multi-byte character split
 * across two network chunks arrives whole.
 *
 * Linear in the body however it is split: each chunk is scanned once, and an unfinished
 * line is kept as a list of pieces joined only when its end arrives (rescanning the
 * unfinished line on every chunk made one long line in small pieces quadratic).
 *
 * The parser is synchronous and hands over every event a chunk completes at once: a
 * stream's reader then pays one turn of the event loop per network chunk, not per event
 * (a provider's chunk often holds dozens of events).
 */

/** Thrown when a stream grows past `maxBytes` (no rewrite needs that much). */
export class StreamTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`stream larger than ${maxBytes} bytes`);
    this.name = 'StreamTooLargeError';
  }
}

export class ServerSentEventParser {
  private readonly decoder = new TextDecoder();
  private size = 0;
  private partial: string[] = [];
  private data: string[] = [];
  // A CR ending one chunk may be the first half of a CRLF: the LF that follows ends nothing.
  private skipLeadingLf = false;

  constructor(private readonly maxBytes: number) {}

  /** The data of every event this chunk completes, in order; throws StreamTooLargeError past the cap. */
  push(chunk: Uint8Array): string[] {
    this.size += chunk.length;
    if (this.size > this.maxBytes) throw new StreamTooLargeError(this.maxBytes);
    const events: string[] = [];
    const text = this.decoder.decode(chunk, { stream: true });
    let start = this.skipLeadingLf && text.charCodeAt(0) === 10 ? 1 : 0;
    this.skipLeadingLf = false;
    // Lines are found with indexOf, not a loop per character; the next CR is looked for again only once passed, so the scan stays linear.
    let cr = text.indexOf('\r', start);
    for (;;) {
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      const lf = text.indexOf('\n', start);
      const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
      if (end === -1) break;
      if (this.partial.length === 0) this.line(text, start, end, events);
      else {
        const line = this.partial.join('') + text.slice(start, end);
        this.partial = [];
        this.line(line, 0, line.length, events);
      }
      let next = end + 1;
      if (text.charCodeAt(end) === 13) {
        if (next === text.length) this.skipLeadingLf = true;
        else if (text.charCodeAt(next) === 10) next++;
      }
      start = next;
    }
    if (start < text.length) this.partial.push(text.slice(start));
    return events;
  }

  /** The line `text[start, end)`: a blank line dispatches the event; only `data:` lines are copied out, the other fields are skipped. */
  private line(text: string, start: number, end: number, events: string[]): void {
    if (start === end) {
      if (this.data.length > 0) events.push(this.data.length === 1 ? (this.data[0] as string) : this.data.join('\n'));
      this.data = [];
    } else if (text.startsWith('data:', start)) {
      this.data.push(text.slice(text.charCodeAt(start + 5) === 32 && start + 5 < end ? start + 6 : start + 5, end));
    }
  }
  // An event is dispatched only by its blank line; a body that stops before it has no last event.
}
