/**
 * Word and sentence limits. Only the model can shorten a text, so these are flagged,
 * never fixed.
 *
 * What is counted is the prose: fenced code blocks and the persona's own sign-off are
 * left out, and an inline code span, URL or e-mail address counts as a single word that
 * never ends a sentence.
 */
import type { PersonaRules, RuleViolation } from './types.js';
import type { ProtectedSpan } from './protected-spans.js';
import { segmentsOf } from './word-segments.js';

const UNSPACED = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}`;
/** A run of non-blank characters, or one character of a script written without spaces (as word processors count them). */
const TOKEN = new RegExp(String.raw`[${UNSPACED}]|[^\s${UNSPACED}]+`, 'gu');
const HAS_WORD = /[\p{L}\p{N}]/u;

/** A list, heading or quote marker at the start of a line. */
const MARKER = String.raw`[ \t\r]*(?:[-*+•]|\d{1,3}[.)]|#{1,6}|>)[ \t]+`;
/** Paragraph breaks, and line breaks that start a list item, heading or quote. */
const BLOCK_BREAK = new RegExp(String.raw`\n[ \t]*(?:\r?\n)+|\n(?=${MARKER})`, 'u');
const BLOCK_MARKER = new RegExp(`^${MARKER}`, 'u');
/** List numbers ("1.") are markup, not words. */
const LINE_MARKER = new RegExp(`^${MARKER}`, 'gmu');
const TERMINATOR = /[.!?…]+["'”’»)\]*_]*(?=\s|$)|[。！？]+/gu;
/** Words whose full stop does not end a sentence. Initials ("J. Smith") are handled separately. */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'cf', 'e.g', 'i.e', 'approx',
  'fig', 'z.b', 'd.h', 'u.a', 'bzw', 'ca', 'p.ex',
]);

export function proseForCounting(text: string, spans: readonly ProtectedSpan[]): string {
  let out = '';
  let cursor = 0;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    if (span.start < cursor) continue;
    const dropped = span.kind === 'code-block' || span.kind === 'sign-off';
    out += text.slice(cursor, span.start) + (dropped ? '\n\n' : 'x');
    cursor = span.end;
  }
  return out + text.slice(cursor);
}

export function countWords(prose: string, locale: string | null = null): number {
  let words = 0;
  const withoutMarkers = prose.replace(LINE_MARKER, '');
  if (locale !== null) return countSegmentedWords(withoutMarkers, locale);
  for (const [token] of withoutMarkers.matchAll(TOKEN)) if (HAS_WORD.test(token)) words++;
  return words;
}

const BLANK = /^\s+$/u;
const UNSPACED_LETTER = new RegExp(`[${UNSPACED}]`, 'u');

/**
 * Words as the locale segments them, where a run without blanks counts once as without a locale
 * ("E-Mail", "don't", a URL's placeholder), except in scripts written without spaces, whose words
 * each count: "株式会社に連絡してください" is five words or so, not thirteen.
 */
function countSegmentedWords(prose: string, locale: string): number {
  let words = 0;
  let afterBlank = true;
  for (const { segment, isWordLike } of segmentsOf(prose, locale)) {
    if (BLANK.test(segment)) afterBlank = true;
    else if (isWordLike) {
      if (afterBlank || UNSPACED_LETTER.test(segment)) words++;
      afterBlank = false;
    }
  }
  return words;
}

export function countSentences(prose: string): number {
  let sentences = 0;
  for (const rawBlock of prose.split(BLOCK_BREAK)) {
    const block = rawBlock.replace(BLOCK_MARKER, '');
    let segmentStart = 0;
    for (const match of block.matchAll(TERMINATOR)) {
      if (match[0].startsWith('.') && isAbbreviation(block.slice(segmentStart, match.index))) continue;
      if (HAS_WORD.test(block.slice(segmentStart, match.index))) sentences++;
      segmentStart = match.index + match[0].length;
    }
    if (HAS_WORD.test(block.slice(segmentStart))) sentences++;
  }
  return sentences;
}

function isAbbreviation(before: string): boolean {
  // Only the tail matters, and looking only there keeps a run of abbreviations linear.
  const word = (before.slice(-16).split(/\s/u).at(-1) ?? '').replace(/^[("'“‘[]+/u, '');
  const initial = /^\p{Lu}$/u.test(word) && word !== 'I';
  return initial || ABBREVIATIONS.has(word.toLowerCase());
}

export function lengthViolations(
  rules: PersonaRules,
  text: string,
  spans: readonly ProtectedSpan[],
): RuleViolation[] {
  if (rules.maxWords === null && rules.maxSentences === null) return [];
  const prose = proseForCounting(text, spans);
  const violations: RuleViolation[] = [];
  const over = (rule: 'maxWords' | 'maxSentences', count: number, limit: number, unit: string) => {
    if (count > limit) {
      violations.push({ rule, message: `has ${count} ${unit}; the limit is ${limit}`, start: 0, end: text.length });
    }
  };
  if (rules.maxWords !== null) over('maxWords', countWords(prose, rules.locale), rules.maxWords, 'words');
  if (rules.maxSentences !== null) over('maxSentences', countSentences(prose), rules.maxSentences, 'sentences');
  return violations;
}
