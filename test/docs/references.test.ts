/**
 * Every reference a maintainer may follow leads somewhere inside this repository:
 * nothing cites a design document that lives outside it, and every citation of
 * docs/decisions.md names one of its headings.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const tracked = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
  .split('\0')
  .filter((path) => path !== '' && !/\.(png|jpe?g|gif|ico|woff2?|sqlite)$|package-lock\.json$/.test(path));
const texts = tracked.map((path) => ({ path, text: readFileSync(path, 'utf8') }));

describe('references', () => {
  it('none points outside the repository (a DESIGN document, ../shared)', () => {
    const outside = /\bDESIGN\b|\.\.\/shared\b|\bshared\/(?:DESIGN|STYLE|spec)\b/;
    const found = texts.flatMap(({ path, text }) =>
      text.split('\n').flatMap((line, i) => (outside.test(line) && path !== 'test/docs/references.test.ts' ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('every citation of docs/decisions.md names one of its headings', () => {
    const headings = new Set([...readFileSync('docs/decisions.md', 'utf8').matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim()));
    const citations = texts.flatMap(({ path, text }) => [...text.matchAll(/docs\/decisions\.md, "([^"]+)"/g)].map((m) => ({ path, section: m[1]! })));
    expect(citations.length).toBeGreaterThan(5);
    expect(citations.filter(({ section }) => !headings.has(section))).toEqual([]);
  });
});
