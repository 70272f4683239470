/**
 * Addresses are looked for word by word (only in the words that hold `://`, `@` or a dot):
 * the same spans, in the same order, as matching each pattern over the whole text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ADDRESS_PATTERNS, findAddresses } from '../../src/rules/protected-spans.js';

/** The whole-text scan the word-by-word one replaced, gates and trimming included. */
function wholeTextAddresses(text: string) {
  const scan = (pattern: RegExp, kind: string) =>
    [...text.matchAll(new RegExp(pattern))].flatMap((match) => {
      const kept = trimmedLength(match[0]);
      return kept > 0 ? [{ kind, start: match.index, end: match.index + kept }] : [];
    });
  const dotInsideWord = [...text.matchAll(/\./g)].some(({ index }) => index > 0 && /[\p{L}\p{N}]/u.test(text[index - 1]!) && /[\p{L}\p{N}]/u.test(text[index + 1] ?? ''));
  return [
    ...(/:\/\/|mailto:|www\./i.test(text) ? scan(ADDRESS_PATTERNS.url, 'url') : []),
    ...(text.includes('@') ? scan(ADDRESS_PATTERNS.email, 'email') : []),
    ...(dotInsideWord ? scan(ADDRESS_PATTERNS.host, 'url') : []),
  ];
}

/** trimUrlEnd's rule: sentence punctuation, and a closing bracket without its opening one. */
function trimmedLength(url: string): number {
  let end = url.length;
  const count = (char: string) => url.slice(0, end).split(char).length - 1;
  for (;;) {
    const last = url[end - 1];
    if (last !== undefined && '.,;:!?*_~'.includes(last)) end--;
    else if (last === ')' && count('(') < count(')')) end--;
    else if (last === ']' && count('[') < count(']')) end--;
    else break;
  }
  return end;
}

// Address syntax, every kind of blank `\s` knows, scripts written without spaces, astral letters.
const pieces = fc.constantFrom(
  'a', 'Z', '7', 'é', '𝒜', '合', 'ไ', '-', '_', '.', '..', '@', ':', '/', '//', '://', '?', '#', '(', ')', '[', ']', '"', "'", '`', '<', '>', ',', '!', '。',
  'http', 'https://', 'mailto:', 'www.', 'WWW.', 'acme', '.com', '.io', '.example/', '.de', 'x.y', 'user@', 'b.co',
  ' ', '\n', '\t', '\r', '\v', '\f', '\u00A0', '\u1680', '\u2003', '\u2028', '\u2029', '\u202F', '\u205F', '\u3000', '\uFEFF', '\u200B', '\u0085',
);

describe('findAddresses', () => {
  it('finds what a scan of the whole text finds', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(findAddresses(text)).toEqual(wholeTextAddresses(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees on realistic text', () => {
    const text = 'Mail support@acme.com or see https://acme.example/track/40213. Docs: docs.acme.io/help, www.acme.de and mailto:a@b.co!';
    expect(findAddresses(text)).toEqual(wholeTextAddresses(text));
    expect(findAddresses(text).length).toBeGreaterThan(4);
  });
});
