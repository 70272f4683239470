import { describe, expect, it } from 'vitest';
import { prettyLine } from '../../src/logging/pretty-log.js';

const time = Date.UTC(2026, 10, 23, 9, 5, 7, 42);

describe('pretty log lines', () => {
  it('show the time, the level and the message, then the other fields as key=value', () => {
    const json = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', reqId: 'r-1', url: '/v1/refine', note: 'two words', n: 3, msg: 'slow' });
    expect(prettyLine(json, false)).toBe('09:05:07.042 WARN  slow reqId=r-1 url=/v1/refine note="two words" n=3\n');
    expect(prettyLine(json, true)).toBe('\u001b[90m09:05:07.042\u001b[39m \u001b[33mWARN \u001b[39m slow \u001b[90mreqId=r-1 url=/v1/refine note="two words" n=3\u001b[39m\n');
  });

  it("print an error's stack indented under the line", () => {
    const json = JSON.stringify({ level: 50, time, msg: 'request errored', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.js:1:1)' } });
    expect(prettyLine(json, false)).toBe('09:05:07.042 ERROR request errored\n    Error: boom\n        at x (y.js:1:1)\n');
  });

  it('pass a line that is not JSON through unchanged', () => {
    expect(prettyLine('not json', false)).toBe('not json\n');
  });
});
