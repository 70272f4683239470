/**
 * The persona's rules applied to a streamed answer as it arrives. What is shown is
 * always a prefix of what the non-streamed refine would return for the same answer
 * (without its repair call), however the provider splits it: a piece is shown once no
 * continuation can change it. Only the last few words are held back (the longest
 * vocabulary or casing phrase's, the sign-off's and two more), and text inside a
 * construct still open (an inline code span, a link target, a wrapper at the start).
 *
 * Linear in the answer, with a small constant: the work of each look is bounded by the
 * part after the last paragraph break that is settled ("the anchor"). The fixes are local
 * to a paragraph (no phrase spans a blank line; no protected span crosses one outside a
 * fenced block), and once the start is settled only the answer's very end can still be
 * unwrapped, so the text before the anchor is final and is never looked at again.
 * A paragraph over LONG_PARAGRAPH may also be anchored at a sentence's start, under the
 * conditions moveAnchorInParagraph states; where it cannot, a look within it waits for a
 * quarter more text, so even one paragraph of megabytes costs a few passes over it. The end compares what was shown with the
 * whole answer refined at once; if a bug ever made them differ, the true result wins
 * (`replaced`).
 *
 * When the rules change no text (none, or only checks such as `preserve`, run at the end), only
 * the cleanup and the scrubbing apply in flight, and once the start is settled both
 * act at the answer's end or on a key's fragments alone: everything else is shown as it
 * arrives, mid-word included, so the first text leaves with the first piece that settles the
 * start.
 */
import { applyWordFixes, changesText, endsInsideFence, enforce, findCode, mask, type PersonaRules, type PreservedOriginal, type RuleFinding } from '../rules/index.js';
import type { SecretScrubber } from '../providers/secret-scrubber.js';
import { type AnswerCleanup, rewriteCleanup } from './output-cleanup.js';

export interface StreamEnd {
  /** The text not shown yet, the sign-off included ('' when replaced). */
  rest: string;
  /** The whole result: the non-streamed result without its repair call. */
  response: string;
  violations: RuleFinding[];
  /** What was shown is not a prefix of the result (a bug, logged and counted): `response` replaces it. */
  replaced: boolean;
}

const wordCount = (phrase: string) => phrase.trim().split(/\s+/u).length;
/**
 * A look re-runs the cleanup and the fixes over the part after the anchor, so it waits
 * for this many new characters (about four words; or a line break).
 */
const SETTLE_EVERY_CHARS = 24;
/** And, within a long paragraph, for a quarter more of it: a fixed step would make one huge paragraph quadratic. */
const SETTLE_EVERY_FRACTION_SHIFT = 2;
const WHITESPACE = /\s/u;
const BLANK_LINE = /\n[ \t]*\r?\n/g;
/** A paragraph break followed by the next paragraph's first character: where an anchor may go. */
const PARAGRAPH_START = /\n[ \t]*\r?\n\s*(?=\S)/g;
/** A paragraph this long may be anchored at a sentence's start; shorter ones are refined whole at each look, as they cost little. */
const LONG_PARAGRAPH = 1024;
/** The end of a sentence and the blanks after it, before a capital letter. */
const SENTENCE_START = /[.!?][ \t]+(?=\p{Lu})/gu;
/**
 * What could open a span that a later piece closes, over blanks: code and fences (backticks,
 * tildes), a link target (`](`), a placeholder (`{{…}}`, `${…}`, `[[…]]`), an echoed element.
 * Addresses hold no blank, so they cannot reach over a sentence's end.
 */
const OPENS_A_SPAN = /[`~{}[\]<>]/;

export class StreamRefinement {
  private raw = '';
  /** The answer after the anchor: all of it until the first anchor is set. */
  private tail = '';
  /** The shown text that belongs to the part after the anchor. */
  private tailShown = '';
  /** All shown text, for the end's comparison. */
  private shown = '';
  private anchored = false;
  private startSettled = false;
  /** How many last words a look holds back; undefined when the rules change no text, and pieces show as they arrive. */
  private readonly heldWords: number | undefined;
  private headCut = -1;
  private head = '';
  private settledAt = 0;
  /** The last paragraph start (in the tail) tried as an anchor. */
  private triedAnchor = 0;
  /** Without fixes: the text not shown yet, and its length at the last look. */
  private pending = '';
  private pendingAtLook = 0;

  /** `rules` undefined: the persona has none, and only the cleanup applies. */
  constructor(
    private readonly rules: PersonaRules | undefined,
    /** The content's items the answer must keep (the preserve rule), checked at the end. */
    private readonly original?: PreservedOriginal,
    /** The request's provider keys, removed from the answer like from any provider text. */
    private readonly scrubber?: SecretScrubber,
    /** What is unwrapped: a rewrite's wrappers by default; a generated answer keeps its own. */
    private readonly cleanup: AnswerCleanup = rewriteCleanup,
  ) {
    if (rules === undefined || !changesText(rules)) return;
    // Every term of the term base: a longer kept or forbidden phrase decides whether a preferred one inside it is rewritten.
    const phrases = [...rules.vocabulary.map((entry) => entry.from), ...rules.casing, ...rules.terms.flatMap((entry) => [entry.term, ...entry.replaces])];
    let longest = 1;
    for (const phrase of phrases) longest = Math.max(longest, wordCount(phrase));
    this.heldWords = longest + (rules.signOff === null ? 0 : wordCount(rules.signOff)) + 2;
  }

  /** Adds the next piece of the answer; returns the text that can be shown now ('' for none). */
  push(piece: string): string {
    this.raw += piece;
    const { rules, heldWords } = this;
    if (rules === undefined || heldWords === undefined) return this.showPlain(piece);
    this.tail += piece;
    // Nothing settles before a word ends.
    if (!WHITESPACE.test(piece)) return '';
    const since = this.tail.length - this.settledAt;
    if (since < this.tail.length >> SETTLE_EVERY_FRACTION_SHIFT || (since < SETTLE_EVERY_CHARS && !piece.includes('\n'))) return '';
    this.settledAt = this.tail.length;
    return this.settle(rules, heldWords);
  }

  /** Adds a piece without looking for text to show: for an answer collected whole. */
  append(piece: string): void {
    this.raw += piece;
  }

  /** The answer is complete: the rest of the text, and what the whole refine returns. */
  finish(): StreamEnd {
    const cleaned = this.clean(this.cleanup.whole(this.raw));
    const result = this.rules === undefined ? { text: cleaned, remaining: [] } : enforce(this.rules, cleaned, this.original);
    if (!result.text.startsWith(this.shown)) return { rest: '', response: result.text, violations: result.remaining, replaced: true };
    const rest = result.text.slice(this.shown.length);
    this.shown += rest;
    return { rest, response: this.shown, violations: result.remaining, replaced: false };
  }

  /**
   * Without fixes: all that has arrived but the trailing blanks, a closing element in the
   * making and what the scrubber may still redact. A look costs the text not shown yet; when
   * that keeps growing (a held part no piece settles), a look waits for a quarter more of it.
   */
  private showPlain(piece: string): string {
    this.pending += piece;
    if (this.pending.length - this.pendingAtLook < this.pending.length >> SETTLE_EVERY_FRACTION_SHIFT) return '';
    this.pendingAtLook = this.pending.length;
    if (!this.startSettled) {
      if (!this.cleanup.settled(this.pending)) return '';
      this.startSettled = true;
      this.pending = this.pending.slice(this.cleanup.start(this.pending));
    }
    // The cleanup trims what follows a preamble or an echoed opening element.
    if (this.shown === '') this.pending = this.pending.trimStart();
    const pending = this.pending;
    const visible = pending.trimEnd();
    const cut = visible.slice(0, this.cleanup.closingStart(visible)).trimEnd().length;
    const { shown: delta, consumed } = this.scrubber?.settledPrefix(pending, cut) ?? { shown: pending.slice(0, cut), consumed: cut };
    if (consumed === 0) return '';
    this.pending = pending.slice(consumed);
    this.pendingAtLook = this.pending.length;
    this.shown += delta;
    return delta;
  }

  private clean(text: string): string {
    return this.scrubber === undefined ? text : this.scrubber.scrub(text);
  }

  /** The refined form of the part after the anchor: the whole cleanup before the first anchor, only the end's after. */
  private transform(rules: PersonaRules, part: string): string {
    return applyWordFixes(rules, this.clean(this.anchored ? this.cleanup.end(part) : this.cleanup.whole(part))).text;
  }

  private settle(rules: PersonaRules, heldWords: number): string {
    if (!this.startSettled) {
      if (!this.cleanup.settled(this.tail)) return '';
      this.startSettled = true;
    }
    const cut = cutBeforeLastWords(this.tail, heldWords);
    if (cut <= (this.anchored ? 0 : this.cleanup.start(this.tail))) return '';
    if (cut !== this.headCut) {
      this.headCut = cut;
      this.head = this.transform(rules, this.tail.slice(0, cut));
    }
    const full = this.transform(rules, this.tail);
    // Where the text up to the cut and the whole text agree, no later word can change it.
    let end = Math.min(commonPrefixLength(this.head, full), openConstructStart(full));
    while (end > 0 && WHITESPACE.test(full.charAt(end - 1))) end--;
    // Never end between the two halves of a surrogate pair.
    if (end > 0 && /[\uD800-\uDBFF]/.test(full.charAt(end - 1))) end--;
    if (end <= this.tailShown.length || !full.startsWith(this.tailShown)) return '';
    const delta = full.slice(this.tailShown.length, end);
    this.tailShown += delta;
    this.shown += delta;
    this.moveAnchor(rules, full, cut);
    return delta;
  }

  /**
   * Moves the anchor to the start of the last paragraph that begins inside what was shown
   * and before the cut, outside any fenced block, when the part from there refines, on its
   * own, to exactly the rest of `full`: then nothing before it can change any more.
   */
  private moveAnchor(rules: PersonaRules, full: string, cut: number): void {
    const rawAt = lastParagraphStart(this.tail, cut);
    const outAt = lastParagraphStart(full, this.tailShown.length);
    // Each candidate is tried once: a failed one is retried only when a later paragraph starts.
    if (rawAt <= this.triedAnchor || outAt <= 0 || endsInsideFence(this.tail.slice(0, rawAt))) {
      this.moveAnchorInParagraph(rules, full, cut);
      return;
    }
    this.triedAnchor = rawAt;
    const rest = this.tail.slice(rawAt);
    const wasAnchored = this.anchored;
    this.anchored = true;
    if (this.transform(rules, rest) !== full.slice(outAt)) {
      this.anchored = wasAnchored;
      return;
    }
    this.anchorAt(rawAt, outAt);
  }

  /**
   * Within a paragraph longer than LONG_PARAGRAPH, the anchor may go to a sentence's start: every
   * look would otherwise refine the whole paragraph again. Only where nothing before it in the
   * part after the anchor could open a span that a later piece closes (OPENS_A_SPAN), outside a
   * persona's locale (whose word segmentation looks further), and when the part from there
   * refines, on its own, to the end of `full` that begins within what was shown. No fix spans a sentence's end but a phrase that holds one, and such a phrase lies
   * before the held last words, whole, when the check runs.
   */
  private moveAnchorInParagraph(rules: PersonaRules, full: string, cut: number): void {
    if (this.tail.length <= LONG_PARAGRAPH || rules.locale !== null || !this.startSettled) return;
    const rawAt = lastSentenceStart(this.tail, cut);
    if (rawAt <= this.triedAnchor || OPENS_A_SPAN.test(this.tail.slice(0, rawAt))) return;
    this.triedAnchor = rawAt;
    const wasAnchored = this.anchored;
    this.anchored = true;
    const rest = this.transform(rules, this.tail.slice(rawAt));
    const outAt = full.length - rest.length;
    if (outAt <= 0 || outAt > this.tailShown.length || !full.endsWith(rest)) {
      this.anchored = wasAnchored;
      return;
    }
    this.anchorAt(rawAt, outAt);
  }

  /** Drops the part before `rawAt` (`outAt` in the refined text), which was shown and can no longer change. */
  private anchorAt(rawAt: number, outAt: number): void {
    const rest = this.tail.slice(rawAt);
    this.tail = rest;
    this.triedAnchor = 0;
    this.tailShown = this.tailShown.slice(outAt);
    this.settledAt = Math.max(0, this.settledAt - rawAt);
    this.headCut = -1;
  }
}

/** Where the last sentence starting at or before `limit` begins (its capital letter after `.`, `!` or `?` and blanks), or -1. */
function lastSentenceStart(text: string, limit: number): number {
  let at = -1;
  SENTENCE_START.lastIndex = 0;
  for (let match = SENTENCE_START.exec(text); match !== null; match = SENTENCE_START.exec(text)) {
    const start = match.index + match[0].length;
    if (start > limit) break;
    at = start;
  }
  return at;
}

/** Where the last paragraph starting at or before `limit` begins (its first character), or -1. */
function lastParagraphStart(text: string, limit: number): number {
  let at = -1;
  PARAGRAPH_START.lastIndex = 0;
  for (let match = PARAGRAPH_START.exec(text); match !== null; match = PARAGRAPH_START.exec(text)) {
    const start = match.index + match[0].length;
    if (start > limit) break;
    at = start;
  }
  return at;
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
 * A placeholder that the rest of its line could still close (src/rules/placeholders.ts: one
 * line, at most 200 characters inside), half its closer there already. Each try stops at the
 * next brace or bracket, the start of the next try: linear in the line.
 */
const OPEN_PLACEHOLDER = /(?:\{\{\{[^{}\n]{0,200}\}{0,2}|\{\{[^{}\n]{0,200}\}?|\$\{[^{}\n]{0,200}|\[\[[^[\]\n]{0,200}\]?)$/u;
/** What OPEN_PLACEHOLDER needs in the line's end to find anything: most looks find none and blank no code. */
const PLACEHOLDER_OPENER = /\{\{|\$\{|\[\[/;
/** As long as the longest placeholder that can still close: `{{{`, 200 characters, `}}`. */
const PLACEHOLDER_REACH = 205;

/**
 * Where a construct that a later piece could close begins: a backtick run of the last
 * paragraph not closed by a run of the same length (a code span in the making), a
 * placeholder (`{{…`, `${…`, `[[…`) its line could still close, or a link target `](`
 * without its `)`. Text from there on may become protected from the fixes.
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
  // Placeholders are found with code blanked out (src/rules/protected-spans.ts): a code span, even
  // one a later backtick closes, can hide the `}}` that seems to close one. So one must close
  // before any construct still open.
  const head = text.slice(0, open);
  const window = Math.max(head.length - PLACEHOLDER_REACH, paragraph);
  const reach = window + head.slice(window).lastIndexOf('\n') + 1;
  if (!PLACEHOLDER_OPENER.test(head.slice(reach))) return open;
  const last = head.slice(paragraph);
  const placeholder = OPEN_PLACEHOLDER.exec(mask(last, findCode(last)).slice(reach - paragraph));
  return placeholder === null ? open : reach + placeholder.index;
}
