/**
 * Every reference a maintainer may follow leads somewhere inside this repository:
 * nothing cites a design document that lives outside it, every citation of a docs/ file
 * (`docs/http-contract.md, "Errors"`) names one of that file's headings, every link
 * between the docs/ files resolves, and docs/README.md indexes every topic file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  .split('\0')
  .filter((path) => path !== '' && existsSync(path) && !/\.(png|jpe?g|gif|ico|woff2?|sqlite|tgz)$|package-lock\.json$/.test(path));
const texts = tracked.map((path) => ({ path, text: readFileSync(path, 'utf8') }));
const docs = tracked.filter((path) => /^docs\/[^/]+\.md$/.test(path));

const headingsOf = (path: string) => new Set([...readFileSync(path, 'utf8').matchAll(/^#{1,4} (.+)$/gm)].map((m) => m[1]!.trim()));

describe('references', () => {
  it('none points outside the repository (a DESIGN document, ../shared)', () => {
    const outside = /\bDESIGN\b|\.\.\/shared\b|\bshared\/(?:DESIGN|STYLE|spec)\b/;
    const found = texts.flatMap(({ path, text }) =>
      text.split('\n').flatMap((line, i) => (outside.test(line) && path !== 'test/docs/references.test.ts' ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('every citation of a docs/ file names one of its headings', () => {
    const citations = texts.flatMap(({ path, text }) =>
      [...text.matchAll(/docs\/([\w-]+\.md), "([^"]+)"/g)].map((m) => ({ path, file: `docs/${m[1]!}`, section: m[2]! })),
    );
    expect(citations.length).toBeGreaterThan(5);
    const broken = citations.filter(({ file, section }) => !existsSync(file) || !headingsOf(file).has(section));
    expect(broken).toEqual([]);
  });

  it('nothing cites the retired docs/decisions.md log', () => {
    const found = texts.filter(({ path, text }) => path !== 'test/docs/references.test.ts' && text.includes('decisions.md')).map(({ path }) => path);
    expect(found).toEqual([]);
  });

  it('every relative link in docs/ and the READMEs resolves to a file', () => {
    const sources = [...docs, 'README.md', 'sdk/README.md'];
    const broken = sources.flatMap((source) =>
      [...readFileSync(source, 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^(?:[a-z]+:|\/)/.test(target))
        .filter((target) => !existsSync(join(dirname(source), target)))
        .map((target) => `${source} → ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('docs/README.md indexes every topic file', () => {
    const index = readFileSync('docs/README.md', 'utf8');
    const missing = docs.filter((path) => path !== 'docs/README.md' && !index.includes(`(${path.slice('docs/'.length)})`));
    expect(missing).toEqual([]);
  });
});
