/**
 * Words as a locale segments them (Intl.Segmenter), for personas that set `locale`: Japanese and
 * Chinese text, written without spaces, is matched and counted by its words rather than by each
 * character, and a phrase matches only whole words, so "会社" is not found inside "株式会社" nor
 * "Service" inside "Kundenservice".
 *
 * Linear in the text: one segmentation, then at each word only the phrases that start with it.
 */
import type { OverlapTest } from './spans.js';
import type { PhraseMatch } from './word-match.js';

/** A segmenter per locale, reused: building one costs far more than a short text's segmentation. */
const segmenters = new Map<string, Intl.Segmenter>();
const MAX_SEGMENTERS = 64;

export function segmenterFor(locale: string): Intl.Segmenter {
  let segmenter = segmenters.get(locale);
  if (segmenter === undefined) {
    if (segmenters.size >= MAX_SEGMENTERS) segmenters.clear();
    segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, segmenter);
  }
  return segmenter;
}

/**
 * ICU's segmentation of one string grows with the square of its length in Japanese (64 KiB took
 * seconds), so a text is segmented in pieces of at most CHUNK characters, cut at a blank, else
 * after a sentence's end, else anywhere (a word there may be split in two; no text has words that
 * long). Linear in the text, whoever wrote it.
 */
const CHUNK = 1024;
const BLANK = /\s/u;
const SENTENCE_END = /[。！？.!?]/u;

function cutBefore(text: string, from: number, limit: number): number {
  if (limit >= text.length) return text.length;
  for (const boundary of [BLANK, SENTENCE_END]) {
    for (let at = limit; at > from + CHUNK / 2; at--) if (boundary.test(text[at - 1]!)) return at;
  }
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

export function segmentsOf(text: string, locale: string): Generator<{ segment: string; index: number; isWordLike: boolean }> {
  return segmentsWith(segmenterFor(locale), text);
}

export function* segmentsWith(segmenter: Intl.Segmenter, text: string): Generator<{ segment: string; index: number; isWordLike: boolean }> {
  for (let from = 0; from < text.length; ) {
    const to = cutBefore(text, from, from + CHUNK);
    for (const { segment, index, isWordLike } of segmenter.segment(text.slice(from, to))) yield { segment, index: from + index, isWordLike: isWordLike === true };
    from = to;
  }
}

interface Word {
  start: number;
  end: number;
  key: string;
}

const keyOf = (word: string): string => word.toLowerCase();

function wordsOf(text: string, locale: string): Word[] {
  const words: Word[] = [];
  for (const { segment, index, isWordLike } of segmentsOf(text, locale)) {
    if (isWordLike) words.push({ start: index, end: index + segment.length, key: keyOf(segment) });
  }
  return words;
}

/**
 * What stands between two words, as a phrase's words may be separated: blanks with at most one
 * line break are one space, nothing is nothing, anything else must be written alike (a hyphen).
 * A paragraph break never joins two words of a phrase.
 */
function gapKey(gap: string): string | null {
  if (gap === '') return '';
  if (/^\s+$/u.test(gap)) return (gap.match(/\n/g)?.length ?? 0) > 1 ? null : ' ';
  return keyOf(gap.replace(/\s+/gu, ' '));
}

interface Candidate {
  phrase: number;
  words: string[];
  gaps: (string | null)[];
  /** Characters of the phrase before its first word and after its last ("C++"): the text must have them too. */
  before: string;
  after: string;
  length: number;
}

function candidateOf(phrase: string, index: number, locale: string): Candidate | null {
  const trimmed = phrase.trim();
  const words = wordsOf(trimmed, locale);
  if (words.length === 0) return null;
  return {
    phrase: index,
    words: words.map((word) => word.key),
    gaps: words.slice(1).map((word, i) => gapKey(trimmed.slice(words[i]!.end, word.start))),
    before: keyOf(trimmed.slice(0, words[0]!.start)),
    after: keyOf(trimmed.slice(words.at(-1)!.end)),
    length: trimmed.length,
  };
}

export interface SegmentedMatcher {
  /** Phrases with a word, by their first word, longest first. */
  byFirstWord: Map<string, Candidate[]>;
  /** Indexes of phrases without any word (punctuation alone), which the caller matches as before. */
  wordless: number[];
}

export function segmentedMatcher(phrases: readonly string[], locale: string): SegmentedMatcher {
  const byFirstWord = new Map<string, Candidate[]>();
  const wordless: number[] = [];
  phrases.forEach((phrase, index) => {
    if (phrase.trim() === '') return;
    const candidate = candidateOf(phrase, index, locale);
    if (candidate === null) {
      wordless.push(index);
      return;
    }
    const list = byFirstWord.get(candidate.words[0]!) ?? [];
    list.push(candidate);
    byFirstWord.set(candidate.words[0]!, list);
  });
  for (const list of byFirstWord.values()) list.sort((a, b) => b.length - a.length);
  return { byFirstWord, wordless };
}

/** Every non-overlapping whole-word occurrence, left to right; the longest phrase wins where several start at one word. */
export function findSegmentedPhrases(text: string, matcher: SegmentedMatcher, locale: string, isProtected: OverlapTest): PhraseMatch[] {
  const words = wordsOf(text, locale);
  const gaps = words.slice(1).map((word, i) => gapKey(text.slice(words[i]!.end, word.start)));
  const matches: PhraseMatch[] = [];
  let i = 0;
  while (i < words.length) {
    const match = matchAt(text, words, gaps, i, matcher.byFirstWord.get(words[i]!.key), isProtected);
    if (match === null) {
      i++;
      continue;
    }
    matches.push(match.found);
    i += match.words;
  }
  return matches;
}

function matchAt(
  text: string, words: Word[], gaps: (string | null)[], i: number, candidates: Candidate[] | undefined, isProtected: OverlapTest,
): { found: PhraseMatch; words: number } | null {
  for (const candidate of candidates ?? []) {
    const count = candidate.words.length;
    if (i + count > words.length) continue;
    let whole = true;
    for (let k = 1; k < count && whole; k++) whole = words[i + k]!.key === candidate.words[k] && gaps[i + k - 1] === candidate.gaps[k - 1];
    if (!whole) continue;
    const start = words[i]!.start - candidate.before.length;
    const end = words[i + count - 1]!.end + candidate.after.length;
    if (start < 0 || keyOf(text.slice(start, words[i]!.start)) !== candidate.before) continue;
    if (keyOf(text.slice(words[i + count - 1]!.end, end)) !== candidate.after) continue;
    if (isProtected(start, end)) continue;
    return { found: { start, end, text: text.slice(start, end), phrase: candidate.phrase }, words: count };
  }
  return null;
}
