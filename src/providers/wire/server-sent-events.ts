/**
 * Reads a text/event-stream body into the `data` of each event (WHATWG server-sent
 * events: lines ending in LF, CR or CRLF; `data:` lines joined with LF; comments and
 * other fields ignored). Bytes are decoded as a stream, so a multi-byte character split
 * across two network chunks arrives whole.
 *
 * Linear in the body however it is split: each chunk is scanned once, and an unfinished
 * line is kept as a list of pieces joined only when its end arrives (rescanning the
 * unfinished line on every chunk made one long line in small pieces quadratic).
 */

/** Thrown when a stream grows past `maxBytes` (no rewrite needs that much). */
export class StreamTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`stream larger than ${maxBytes} bytes`);
    this.name = 'StreamTooLargeError';
  }
}

export async function* serverSentEventData(body: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let size = 0;
  let partial: string[] = [];
  let data: string[] = [];
  // A CR ending one chunk may be the first half of a CRLF: the LF that follows ends nothing.
  let skipLeadingLf = false;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw new StreamTooLargeError(maxBytes);
    const text = decoder.decode(chunk, { stream: true });
    let start = skipLeadingLf && text.charCodeAt(0) === 10 ? 1 : 0;
    skipLeadingLf = false;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      const tail = text.slice(start, i);
      const line = partial.length === 0 ? tail : partial.join('') + tail;
      partial = [];
      if (code === 13) {
        if (i + 1 === text.length) skipLeadingLf = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    if (start < text.length) partial.push(text.slice(start));
  }
  // An event is dispatched only by its blank line; a body that stops before it has no last event.
}
