import { describe, expect, it } from 'vitest';
import { EventStreamParser, type ServerSentEvent } from '../src/event-stream-parser.js';

const WIRE =
  ': keep-alive\r\n\r\n' +
  'event: delta\r\ndata: {"text":"café ☕ 日本語"}\r\n\r\n' +
  'event: delta\ndata: {"text":"two\\nlines"}\n\n' +
  ':comment between events\n' +
  'id: 7\rretry: 1000\revent: done\rdata: {"response":"x",\rdata:"more":1}\r\r';
const EXPECTED: ServerSentEvent[] = [
  { event: 'delta', data: '{"text":"café ☕ 日本語"}' },
  { event: 'delta', data: '{"text":"two\\nlines"}' },
  { event: 'done', data: '{"response":"x",\n"more":1}' },
];

function parseChunks(chunks: Uint8Array[]): ServerSentEvent[] {
  const parser = new EventStreamParser();
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
}

describe('EventStreamParser', () => {
  const bytes = new TextEncoder().encode(WIRE);

  it('reads LF, CRLF and CR line ends, skips comments and unknown fields, joins data lines', () => {
    expect(parseChunks([bytes])).toEqual(EXPECTED);
  });

  it('gives the same events however the bytes are split in two or three (inside characters, inside CRLF)', () => {
    for (let i = 0; i <= bytes.length; i++) {
      expect(parseChunks([bytes.subarray(0, i), bytes.subarray(i)])).toEqual(EXPECTED);
      const j = Math.min(bytes.length, i + 3);
      expect(parseChunks([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)])).toEqual(EXPECTED);
    }
  });

  it('byte by byte', () => {
    expect(parseChunks([...bytes].map((b) => Uint8Array.of(b)))).toEqual(EXPECTED);
  });

  it('drops an event the body ended in the middle of', () => {
    expect(parseChunks([new TextEncoder().encode('event: delta\ndata: {"text":"a"}\n\nevent: done\ndata: {')])).toEqual([
      { event: 'delta', data: '{"text":"a"}' },
    ]);
  });

  it('names an event without an event field "message"', () => {
    expect(parseChunks([new TextEncoder().encode('data:x\n\n')])).toEqual([{ event: 'message', data: 'x' }]);
  });
});
