/**
 * Whole-word, case-insensitive phrase matching that understands every script.
 *
 * - A letter is `\p{L}\p{N}\p{M}` (not ASCII `\w`), so "Kundenservice" does not
 *   contain "service" and "café" written with a combining accent is one word.
 * - "customer_id" is an identifier, so "customer" does not match inside it; but
 *   "_customers_" (markdown emphasis) does.
 * - Words of a phrase may be separated by any run of spaces/tabs and at most one
 *   line break: "circle\nback" matches "circle back", a paragraph break does not.
 * - Scripts written without spaces (Chinese, Japanese, Thai…) have no word edges,
 *   so a phrase edge in such a script needs no boundary.
 * - A persona with a `locale` has its words found by Intl.Segmenter for it instead
 *   (word-segments.ts), so those scripts get word edges too.
 */
import { compiledPattern } from './compiled-patterns.js';
import type { OverlapTest, Span } from './spans.js';
import { findSegmentedPhrases, segmentedMatcher } from './word-segments.js';

export interface PhraseMatch extends Span {
  /** Index of the matched phrase in the list given to `findPhrases`. */
  readonly phrase: number;
  readonly text: string;
}

const WORD = String.raw`[\p{L}\p{N}\p{M}]`;
/** Scripts written without spaces between words: a letter of one is no word edge. */
export const UNSPACED = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]`;

/**
 * Word edges, written once around the whole alternation rather than once per phrase:
 * under the `iu` flags every property class is expensive to compile, and per-phrase
 * edges made a 200-term list take a second to compile. They are equivalent, because
 * whether an edge is needed depends only on the first/last character of the match.
 * A match starting with a letter of a spaced script must not follow a letter (nor
 * "letter_"); one ending with such a letter must not precede a letter (nor "_letter").
 */
const START_EDGE = `(?:(?!${WORD})|(?=${UNSPACED})|(?<!${WORD})(?<!${WORD}_))`;
const END_EDGE = `(?:(?<!${WORD})|(?<=${UNSPACED})|(?!${WORD}|_${WORD}))`;
/** Written without ambiguity between its two branches, so a long blank run cannot backtrack badly. */
const GAP = String.raw`(?:[^\S\n]*\n[^\S\n]*|[^\S\n]+)`;

/** Escapes only syntax characters: in `u` mode any other escape (such as `\-`) is an error. */
export function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export function collapseWhitespace(text: string): string {
  return text.trim().replace(/\s+/gu, ' ');
}

/** The regular-expression source for one phrase's words, without edges. */
function phraseBody(phrase: string): string {
  return collapseWhitespace(phrase).split(' ').map(escapeRegExp).join(GAP);
}

interface Matcher {
  order: { phrase: string; index: number }[];
  pattern: RegExp;
}

function buildMatcher(phrases: readonly string[]): Matcher | null {
  const order = phrases
    .map((phrase, index) => ({ phrase, index }))
    .filter(({ phrase }) => phrase.trim() !== '')
    .sort((a, b) => b.phrase.length - a.phrase.length);
  if (order.length === 0) return null;
  const alternatives = order.map(({ phrase }) => `(${phraseBody(phrase)})`).join('|');
  return { order, pattern: new RegExp(`${START_EDGE}(?:${alternatives})${END_EDGE}`, 'giu') };
}

/**
 * Single-threaded use, so sharing one stateful (`g`) pattern is safe as long as
 * `lastIndex` is reset.
 */
function matcherFor(phrases: readonly string[]): Matcher | null {
  return compiledPattern('phrases', phrases.join('\u0000'), () => buildMatcher(phrases), (matcher) => matcher?.pattern.source.length ?? 0);
}

/**
 * Every non-overlapping occurrence of any of the phrases, left to right, skipping
 * occurrences that touch a protected span. Where two phrases start at the same place
 * the longer one wins ("customer service" before "customer").
 */
export function findPhrases(
  text: string,
  phrases: readonly string[],
  isProtected: OverlapTest,
  locale: string | null = null,
): PhraseMatch[] {
  if (locale !== null) return findLocalePhrases(text, phrases, isProtected, locale);
  const matcher = matcherFor(phrases);
  if (matcher === null) return [];
  const { order, pattern } = matcher;
  pattern.lastIndex = 0;

  const matches: PhraseMatch[] = [];
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (isProtected(start, end)) {
      // Retry one code point later: a match may still start inside the skipped one.
      pattern.lastIndex = start + ((text.codePointAt(start) ?? 0) > 0xffff ? 2 : 1);
      continue;
    }
    const group = match.findIndex((value, i) => i > 0 && value !== undefined);
    matches.push({ start, end, text: match[0], phrase: order[group - 1]!.index });
  }
  return matches;
}

/**
 * With a locale: whole words as it segments them. A phrase without any word (punctuation alone)
 * has no word edges to find, so it is matched as without a locale; overlaps keep the earlier match.
 */
function findLocalePhrases(text: string, phrases: readonly string[], isProtected: OverlapTest, locale: string): PhraseMatch[] {
  const matcher = compiledPattern(
    `words:${locale}`, phrases.join('\u0000'), () => segmentedMatcher(phrases, locale), () => phrases.reduce((sum, phrase) => sum + phrase.length, 0),
  );
  const matches = findSegmentedPhrases(text, matcher, locale, isProtected);
  if (matcher.wordless.length === 0) return matches;
  const wordless = findPhrases(text, matcher.wordless.map((index) => phrases[index]!), isProtected).map((match) => ({ ...match, phrase: matcher.wordless[match.phrase]! }));
  const merged: PhraseMatch[] = [];
  for (const match of [...matches, ...wordless].sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (merged.length === 0 || match.start >= merged.at(-1)!.end) merged.push(match);
  }
  return merged;
}
