/**
 * Reads a text/event-stream body into the `data` of each event (WHATWG server-sent
 * events: lines ending in LF, CR or CRLF; `data:` lines joined with LF; comments and
 * other fields ignored). Bytes are decoded as a stream, so a multi-byte character split
 * across two network chunks arrives whole.
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
  let buffer = '';
  let data: string[] = [];
  // A CR ending one chunk may be the first half of a CRLF: the LF that follows ends nothing.
  let skipLeadingLf = false;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw new StreamTooLargeError(maxBytes);
    buffer += decoder.decode(chunk, { stream: true });
    if (skipLeadingLf && buffer.startsWith('\n')) buffer = buffer.slice(1);
    skipLeadingLf = false;
    let start = 0;
    for (;;) {
      const end = lineEnd(buffer, start);
      if (end === -1) break;
      const line = buffer.slice(start, end);
      if (buffer[end] === '\r') {
        if (end + 1 === buffer.length) skipLeadingLf = true;
        start = buffer[end + 1] === '\n' ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    buffer = buffer.slice(start);
  }
  // An event is dispatched only by its blank line; a body that stops before it has no last event.
}

function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) return i;
  }
  return -1;
}
