/**
 * The persona's rules applied to a streamed answer as it arrives. What is shown is
 * always a prefix of what the non-streamed refine would return for the same answer
 * (without its repair call), however the provider splits it: a piece is shown once no
 * continuation can change it. Only the last few words are held back (the longest
 * vocabulary or casing phrase's, the sign-off's and two more), and text inside a
 * construct still open (an inline code span, a link target, a wrapper at the start).
 */
import { applyWordFixes, enforce, type PersonaRules, type PreservedOriginal, type RuleViolation } from '../rules/index.js';
import type { SecretScrubber } from '../providers/secret-scrubber.js';
import { cleanModelOutput, cleanupSettled } from './output-cleanup.js';

export interface StreamEnd {
  /** The text not shown yet, the sign-off included. */
  rest: string;
  /** Everything shown: the non-streamed result without its repair call. */
  response: string;
  violations: RuleViolation[];
  /** Shown text that the final result does not start with: a bug, to be logged. */
  diverged: boolean;
}

const wordCount = (phrase: string) => phrase.trim().split(/\s+/u).length;
/**
 * Settling re-runs the cleanup and the fixes over the text so far, so it waits for this
 * many new characters (about four words; or a line break): a few more characters held
 * back, a fifth of the work on a stream of word-sized pieces.
 */
const SETTLE_EVERY_CHARS = 24;
/**
 * And, on a long answer, for a sixteenth of the text so far: each settle costs the length
 * of the text, so a fixed step would make the whole stream quadratic in its length (an
 * 8 MB answer in word-sized pieces: hours of CPU); a step growing with the text keeps the
 * total under 17 times the length, at the price of holding back at most a sixteenth.
 */
const SETTLE_EVERY_FRACTION_SHIFT = 2;
const WHITESPACE = /\s/u;
const BLANK_LINE = /\n[ \t]*\r?\n/g;

export class StreamRefinement {
  private raw = '';
  private shown = '';
  private readonly heldWords: number;
  private headCut = -1;
  private head = '';
  private settledAt = 0;

  /** `rules` undefined: the persona has none, and only the cleanup applies. */
  constructor(
    private readonly rules: PersonaRules | undefined,
    /** The content's items the answer must keep (the preserve rule), checked at the end. */
    private readonly original?: PreservedOriginal,
    /** The request's provider keys, removed from the answer like from any provider text. */
    private readonly scrubber?: SecretScrubber,
  ) {
    if (rules === undefined) {
      this.heldWords = 1;
    } else {
      const phrases = [...rules.vocabulary.map((entry) => entry.from), ...rules.casing];
      const longest = Math.max(1, ...phrases.map(wordCount));
      this.heldWords = longest + (rules.signOff === null ? 0 : wordCount(rules.signOff)) + 2;
    }
  }

  /** Adds the next piece of the answer; returns the text that can be shown now ('' for none). */
  push(piece: string): string {
    this.raw += piece;
    // Nothing settles before a word ends.
    if (!WHITESPACE.test(piece)) return '';
    const since = this.raw.length - this.settledAt;
    if (since < this.settledAt >> SETTLE_EVERY_FRACTION_SHIFT || (since < SETTLE_EVERY_CHARS && !piece.includes('\n'))) return '';
    this.settledAt = this.raw.length;
    return this.settle();
  }

  /** The answer is complete: the rest of the text, and what the whole refine returns. */
  finish(): StreamEnd {
    const cleaned = this.clean(this.raw);
    const result = this.rules === undefined ? { text: cleaned, remaining: [] } : enforce(this.rules, cleaned, this.original);
    const diverged = !result.text.startsWith(this.shown);
    const rest = diverged ? '' : result.text.slice(this.shown.length);
    this.shown += rest;
    return { rest, response: this.shown, violations: result.remaining, diverged };
  }

  private clean(text: string): string {
    const cleaned = cleanModelOutput(text);
    return this.scrubber === undefined ? cleaned : this.scrubber.scrub(cleaned);
  }

  private transform(text: string): string {
    const cleaned = this.clean(text);
    return this.rules === undefined ? cleaned : applyWordFixes(this.rules, cleaned).text;
  }

  private settle(): string {
    if (!cleanupSettled(this.raw)) return '';
    const cut = cutBeforeLastWords(this.raw, this.heldWords);
    if (cut <= 0) return '';
    if (cut !== this.headCut) {
      this.headCut = cut;
      this.head = this.transform(this.raw.slice(0, cut));
    }
    const full = this.transform(this.raw);
    // Where the text up to the cut and the whole text agree, no later word can change it.
    let end = Math.min(commonPrefixLength(this.head, full), openConstructStart(full));
    while (end > 0 && WHITESPACE.test(full.charAt(end - 1))) end--;
    // Never end between the two halves of a surrogate pair.
    if (end > 0 && /[\uD800-\uDBFF]/.test(full.charAt(end - 1))) end--;
    if (end <= this.shown.length || !full.startsWith(this.shown)) return '';
    const delta = full.slice(this.shown.length, end);
    this.shown += delta;
    return delta;
  }
}

/** The position before the last `words` whitespace-separated words (the unfinished last one not counted). */
function cutBeforeLastWords(text: string, words: number): number {
  let i = text.length;
  while (i > 0 && !WHITESPACE.test(text.charAt(i - 1))) i--;
  for (let n = 0; n < words && i > 0; n++) {
    while (i > 0 && WHITESPACE.test(text.charAt(i - 1))) i--;
    while (i > 0 && !WHITESPACE.test(text.charAt(i - 1))) i--;
  }
  return i;
}

function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Where a construct that a later piece could close begins: a backtick run of the last
 * paragraph not closed by a run of the same length (a code span in the making), or a
 * link target `](` without its `)`. Text from there on may become protected from the fixes.
 */
function openConstructStart(text: string): number {
  let paragraph = 0;
  for (const match of text.matchAll(BLANK_LINE)) paragraph = match.index + match[0].length;
  let open = text.length;
  const runs = [...text.slice(paragraph).matchAll(/`+/g)];
  // For each run, the next run of the same length (its closing one), found in one pass from the end.
  const closing = new Array<number>(runs.length);
  const nextOfLength = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const length = (runs[i] as RegExpMatchArray)[0].length;
    closing[i] = nextOfLength.get(length) ?? -1;
    nextOfLength.set(length, i);
  }
  for (let i = 0; i < runs.length; i++) {
    const close = closing[i] as number;
    if (close === -1) {
      open = paragraph + ((runs[i] as RegExpMatchArray).index ?? 0);
      break;
    }
    i = close;
  }
  const link = text.lastIndexOf('](');
  if (link !== -1 && text.indexOf(')', link) === -1) open = Math.min(open, link);
  return open;
}
