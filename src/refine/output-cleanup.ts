/**
 * Removes the wrappers models put around an answer despite being told not to, and nothing else:
 * a rewrite that legitimately opens with a quote, "Here are the steps:" or a code block is kept.
 */

import { REWRITE_TAG } from './prompt.js';

const INTERJECTIONS = ['sure', 'certainly', 'of course', 'okay', 'ok', 'absolutely', 'alright', 'no problem'];
const REWRITE_ADJECTIVES = ['rewritten', 'refined', 'revised', 'reworded', 'rephrased', 'polished', 'edited', 'updated', 'improved'];
const INTERJECTION = String.raw`(?:(?:${INTERJECTIONS.join('|')})\b[!.,]*\s*)?`;
const REWRITE_ADJECTIVE = `(?:${REWRITE_ADJECTIVES.join('|')})`;
const ANSWER_NOUN = String.raw`(?:text|version|message|copy|draft|response|reply|content)`;
// The announcement must name the rewrite itself ("the refined version", "in Acme's voice"), so an
// answer opening with "Here are the steps:" is not mistaken for one. Bounded repeats keep a long
// first line from backtracking quadratically.
const PREAMBLE = new RegExp(
  String.raw`^${INTERJECTION}(?:\*\*)?(?:` +
    String.raw`(?:here(?:'s|’s|\s+is|\s+are)|below\s+is)\b[^\n]{0,120}?` +
    String.raw`(?:${REWRITE_ADJECTIVE}\s+(?:\w+\s+)?${ANSWER_NOUN}|\brewrite\b|\bvoice\b|\bpersona\b)[^\n]{0,120}?` +
    String.raw`|(?:the\s+)?${REWRITE_ADJECTIVE}(?:\s+${ANSWER_NOUN})?` +
    String.raw`)[ \t]*(?:\*\*)?:(?:\*\*)?[ \t]*(?:\r?\n)+`,
  'i',
);

const WHOLE_FENCE = /^```[\w+.-]*[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```$/;
const FENCE_LINE = /^[ \t]*```/m;

const OPENING_TAG = new RegExp(String.raw`^<${REWRITE_TAG}\b[^>\n]*>`);
const CLOSING_TAG = new RegExp(String.raw`</${REWRITE_TAG}\b[^>\n]*>$`);

const CLOSING_QUOTE: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '“': '”',
  '‘': '’',
  '„': '“',
  '«': '»',
};
// Between two letters a single quote is an apostrophe ("don't"), not the end of the quoted span.
const APOSTROPHE = /(?<=\p{L})['’](?=\p{L})/gu;

/** Order matters: a preamble precedes a fence, which may hold echoed tags, which may hold quotes. */
const UNWRAPPERS: ReadonlyArray<(text: string) => string> = [
  stripPreamble,
  stripWholeFence,
  stripEchoedTags,
  stripWholeQuotes,
];

export function cleanModelOutput(text: string): string {
  const original = text.trim();
  const cleaned = UNWRAPPERS.reduce((current, unwrap) => unwrap(current).trim(), original);
  // An answer that is nothing but a wrapper is still better returned than replaced by nothing.
  return cleaned === '' ? original : cleaned;
}

/**
 * What the cleanup does to the end of an answer whose start is settled (see cleanupSettled):
 * there, no wrapper that needs both ends (a whole fence, whole quotes) can apply, so only the
 * echoed closing element and trailing blanks go. A stream cleans each later part this way.
 */
export function cleanAnswerEnd(text: string): string {
  return text.trimEnd().replace(CLOSING_TAG, '').trimEnd();
}

/**
 * Where the answer proper begins in `text` (a stream's start, once settled): after leading
 * blanks, a preamble and an echoed opening element, which the cleanup removes. A stream
 * compares refined prefixes only past this point: a prefix cut inside the preamble is not
 * cleaned like the whole text, and agreeing with it would be chance.
 */
export function answerStart(text: string): number {
  let at = text.length - text.trimStart().length;
  at += PREAMBLE.exec(text.slice(at))?.[0].length ?? 0;
  at += text.slice(at).length - text.slice(at).trimStart().length;
  return at + (OPENING_TAG.exec(text.slice(at))?.[0].length ?? 0);
}

/**
 * The words a preamble opens with after its interjection (PREAMBLE's two alternatives, each
 * run of whitespace as one space): a first line that is, or may still become, one of these
 * leaves the answer's start undecided.
 */
const ANNOUNCEMENTS = ["here's", 'here’s', 'here is', 'here are', 'below is', ...REWRITE_ADJECTIVES, ...REWRITE_ADJECTIVES.map((adjective) => `the ${adjective}`)];
/** Longer than this, a first line cannot be a preamble (PREAMBLE bounds its two free runs to 120). */
const LONGEST_PREAMBLE_LINE = 400;
const WHOLE_FENCE_FIRST_LINE = /^```[\w+.-]*[ \t]*\r?\n/;
/** A fence line inside, followed by more text: the answer is not one wrapped block. */
const FENCE_LINE_THEN_TEXT = /(?:^|\n)[ \t]*```[^\n]*\n[\s\S]*\S/;

/**
 * Whether every continuation of `text` (the start of a streamed answer) gets the same
 * unwrapping at its start as `text` would: no preamble still being written, and no
 * opening quote or fence whose wrapper status depends on how the answer ends.
 * While it is false, a stream shows nothing, since what it showed might be removed.
 */
export function cleanupSettled(text: string): boolean {
  const start = text.trimStart();
  const newline = start.indexOf('\n');
  if (newline === -1 && start.length < LONGEST_PREAMBLE_LINE && mayOpenPreamble(start)) return false;
  let rest = stripPreamble(start).trim();
  // A preamble with nothing after it yet: the cleanup of the whole text (which trims first)
  // would keep it as the answer, so what follows decides.
  if (rest === '') return false;
  // One or two backticks may yet become a fence.
  if (/^`{1,2}$/.test(rest)) return false;
  if (rest.startsWith('```')) {
    if (!rest.includes('\n')) return false;
    if (WHOLE_FENCE_FIRST_LINE.test(rest) && !FENCE_LINE_THEN_TEXT.test(rest.slice(rest.indexOf('\n') + 1))) return false;
    return true;
  }
  if (rest.startsWith('<') && !/[>\n]/.test(rest)) return false;
  rest = stripEchoedTags(rest).trim();
  if (rest === '') return false;
  const close = CLOSING_QUOTE[rest.charAt(0)];
  return close === undefined || quoteInside(rest, rest.charAt(0), close);
}

/**
 * Whether some continuation of `line` (a first line, without its line break) opens the way
 * PREAMBLE does: an optional interjection ("Sure! "), optional bold, then an announcement. Exact
 * rather than a length bound, so an answer opening with anything else ("Thank you…") is shown
 * from its first piece.
 */
function mayOpenPreamble(line: string): boolean {
  const text = line.toLowerCase().replace(/\s+/gu, ' ');
  const openings = [text];
  for (const word of INTERJECTIONS) {
    if (word.startsWith(text)) return true;
    if (!text.startsWith(word) || /\w/u.test(text.charAt(word.length))) continue;
    let at = word.length;
    while ('!.,'.includes(text.charAt(at)) && at < text.length) at++;
    if (text.charAt(at) === ' ') at++;
    openings.push(text.slice(at));
  }
  return openings.some((opening) => {
    const rest = opening.startsWith('**') ? opening.slice(2) : opening === '*' ? '' : opening;
    return ANNOUNCEMENTS.some((announcement) => announcement.startsWith(rest) || rest.startsWith(announcement));
  });
}

/**
 * Where an echoed closing element may be starting at the end of `text` (which the cleanup
 * would remove if nothing follows it), or `text.length`: a stream holds that part back.
 */
export function closingElementStart(text: string): number {
  const at = text.lastIndexOf('<');
  return at !== -1 && mayStillEnd(text.slice(at).trimEnd()) ? at : text.length;
}

/** A quote mark after the opening one with text after it: the answer is not one quoted span. */
function quoteInside(text: string, open: string, close: string): boolean {
  for (let i = 1; i < text.length; i++) {
    const char = text.charAt(i);
    if (char !== open && char !== close) continue;
    // The last mark so far may yet be the closing one (an echoed closing element may still follow it).
    if (mayStillEnd(text.slice(i + 1).trim())) return false;
    const apostrophe = (char === "'" || char === '’') && /\p{L}/u.test(text.charAt(i - 1)) && /\p{L}/u.test(text.charAt(i + 1));
    if (!apostrophe) return true;
  }
  return false;
}

/** Nothing, or (the start of) the echoed closing element: what may follow the answer's last character. */
function mayStillEnd(after: string): boolean {
  return after === '' || `</${REWRITE_TAG}>`.startsWith(after) || CLOSING_TAG_ALONE.test(after);
}
const CLOSING_TAG_ALONE = new RegExp(String.raw`^</${REWRITE_TAG}\b[^>\n]*>?$`);

function stripPreamble(text: string): string {
  const match = PREAMBLE.exec(text);
  return match ? text.slice(match[0].length) : text;
}

function stripWholeFence(text: string): string {
  const inner = WHOLE_FENCE.exec(text)?.[1];
  // A fence inside means the answer is several blocks with text between, not one wrapped block.
  return inner === undefined || FENCE_LINE.test(inner) ? text : inner;
}

function stripEchoedTags(text: string): string {
  return text.replace(OPENING_TAG, '').trim().replace(CLOSING_TAG, '');
}

function stripWholeQuotes(text: string): string {
  const open = text.charAt(0);
  const close = CLOSING_QUOTE[open];
  if (close === undefined || text.length < 2 || !text.endsWith(close)) return text;
  const inner = text.slice(1, -1);
  const quotesInside = close === "'" || close === '’' ? inner.replace(APOSTROPHE, '') : inner;
  // Any further quote mark means several quoted spans (`"Hi," she said, "bye"`), not one.
  return quotesInside.includes(open) || quotesInside.includes(close) ? text : inner;
}

/**
 * How an answer's wrappers are removed, whole and as a stream sees them: what a stream needs to
 * show only text the whole cleanup keeps (see StreamRefinement).
 */
export interface AnswerCleanup {
  /** The whole answer, cleaned. */
  whole(text: string): string;
  /** Whether no continuation of a stream's start can change how that start is cleaned. */
  settled(text: string): boolean;
  /** Where the answer proper begins in a settled start. */
  start(text: string): number;
  /** The cleanup of a later part of the answer, once the start is settled: only its end changes. */
  end(text: string): string;
  /** Where something the cleanup would remove if nothing followed may be starting at the end of `text`. */
  closingStart(text: string): number;
}

/** A rewrite's answer, as models wrap it despite being told not to (a refine, a repair). */
export const rewriteCleanup: AnswerCleanup = {
  whole: cleanModelOutput, settled: cleanupSettled, start: answerStart, end: cleanAnswerEnd, closingStart: closingElementStart,
};

/**
 * A generated answer (a chat completion's) is the model's own: an answer that is one code
 * block or one quotation is meant as such, so nothing is unwrapped; only the blanks around it go.
 */
export const generatedCleanup: AnswerCleanup = {
  whole: (text) => text.trim(),
  settled: (text) => text.trim() !== '',
  start: (text) => text.length - text.trimStart().length,
  end: (text) => text.trimEnd(),
  closingStart: (text) => text.length,
};
