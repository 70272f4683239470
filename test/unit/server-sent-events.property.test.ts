/**
 * The server-sent events parser against the WHATWG rules written out plainly: for any body of
 * `data:` lines, other fields, comments and blank lines, ended by LF, CR or CRLF, and however its
 * bytes are split (a CRLF or a multi-byte character across two chunks included), the events are
 * those of the whole body split into lines at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServerSentEventParser } from '../../src/providers/wire/server-sent-events.js';

/** The events of a whole body, line by line as the standard says; a last event without its blank line is not dispatched. */
function reference(body: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  const lines = body.split(/\r\n|\r|\n/);
  // What follows the last line end is not a line yet.
  lines.pop();
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) events.push(data.join('\n'));
      data = [];
    } else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  return events;
}

const lineEnd = fc.constantFrom('\n', '\r', '\r\n');
const value = fc.stringMatching(/^[^\r\n]{0,12}$/).map((text) => text.replace(/[\r\n]/g, ''));
const line = fc.oneof(
  value.map((text) => `data: ${text}`),
  value.map((text) => `data:${text}`),
  fc.constant('data:'),
  fc.constant('data: '),
  value.map((text) => `event: ${text}`),
  value.map((text) => `: ${text}`),
  fc.constant(''),
  fc.constant('data: é€😀'),
);
const body = fc.array(fc.tuple(line, lineEnd), { maxLength: 30 }).chain((lines) =>
  fc.tuple(fc.constant(lines.map(([text, end]) => text + end).join('')), value),
).map(([text, tail]) => text + tail);

describe('server-sent events parser', () => {
  it('finds the events of the whole body however its bytes are split, with LF, CR and CRLF line ends', () => {
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 12 }), (text, seeds) => {
        const bytes = Buffer.from(text);
        const cuts = [...new Set(seeds.map((seed) => seed % (bytes.length + 1)))].sort((a, b) => a - b);
        const parser = new ServerSentEventParser(1 << 20);
        const events: string[] = [];
        let from = 0;
        for (const cut of [...cuts, bytes.length]) {
          events.push(...parser.push(bytes.subarray(from, cut)));
          from = cut;
        }
        expect(events).toEqual(reference(text));
      }),
      { numRuns: 2_000 },
    );
  });
});
