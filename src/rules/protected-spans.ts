/**
 * Regions of a text that rules must neither change nor flag: code, URLs, e-mail
 * addresses, markdown link targets and template placeholders. Rewriting "customers"
 * inside `https://acme.com/customers`, a code sample or `{{customers}}` would break it.
 *
 * Detection is deliberately generous: wrongly protecting a few words only means a
 * missed fix, while wrongly editing a URL or code breaks the answer.
 *
 * The `preserve` rule (preserved-items.ts) builds on the same detectors: what the
 * fixes must not touch is also what the model must not lose.
 */
import { appendAll, type Span } from './spans.js';
import { PLACEHOLDER } from './placeholders.js';
import { UNSPACED } from './word-match.js';

export type ProtectedKind = 'code-block' | 'code' | 'link-target' | 'url' | 'email' | 'placeholder' | 'sign-off';

export interface ProtectedSpan extends Span {
  readonly kind: ProtectedKind;
}

const FENCE_OPEN = /^[ \t>]*(`{3,}|~{3,})/;

/**
 * Scripts written without spaces (Chinese, Japanese, Thai…) run straight into a URL
 * ("詳細はhttps://acme.jp/helpをご覧ください"), so their letters and the CJK and
 * full-width punctuation end an address instead of being swallowed by it.
 */
const SPACED = `(?!${UNSPACED})`;
const CJK_PUNCTUATION = String.raw`\u3000-\u303F\uFF01-\uFF65`;
/** A letter or digit of an address. */
const ADDRESS_LETTER = String.raw`(?:${SPACED}[\p{L}\p{N}])`;

/** Everything a URL, e-mail or host can be made of; it stops at whitespace, quotes and angle brackets. */
const URL_CHARS = `(?:${SPACED}[^\\s<>"'\`${CJK_PUNCTUATION}])`;

/**
 * Scheme URLs and www. addresses. The scheme is bounded in length so a long run of
 * letters cannot make the scan quadratic; it has no look-behind, so removing an emoji
 * right before a URL can only make the protected span start earlier, never disappear.
 */
const URL = new RegExp(
  String.raw`(?:[a-z][a-z0-9+-]{0,31}:\/\/|mailto:)${URL_CHARS}+` +
    String.raw`|(?<!${ADDRESS_LETTER})(?<![@./-])www\.${URL_CHARS}+`,
  'giu',
);

const EMAIL_CHAR = String.raw`(?:${SPACED}[\p{L}\p{N}._%+-])`;
const DOMAIN_CHAR = String.raw`(?:${SPACED}[\p{L}\p{N}-])`;
const EMAIL = new RegExp(String.raw`(?<!${EMAIL_CHAR})${EMAIL_CHAR}+@${DOMAIN_CHAR}+(?:\.${DOMAIN_CHAR}+)+`, 'gu');

/**
 * Bare host names ("customers.acme.com", "acme.io/pricing"). Without a path, only
 * common top-level domains count, so that names like "Node.js" or "index.ts" stay
 * ordinary text that casing rules can fix.
 */
const COMMON_TLDS =
  'com|org|net|edu|gov|int|io|co|ai|app|dev|cloud|info|biz|me|tv|us|uk|eu|de|fr|es|it|nl|be|ch|at|' +
  'se|dk|fi|pl|cz|pt|ie|ca|au|nz|jp|cn|in|br|ru|gg|ly|sh|xyz|tech|online|site|page';
const HOST = new RegExp(
  String.raw`(?<!${ADDRESS_LETTER})(?<![_@./-])(?:${ADDRESS_LETTER}${DOMAIN_CHAR}*\.)+` +
    String.raw`(?:(?:${COMMON_TLDS})(?!${ADDRESS_LETTER}|[_-])(?:[/?#:]${URL_CHARS}*)?|[a-z]{2,24}\/${URL_CHARS}*)`,
  'giu',
);

/** `[text](target "title")` and `![alt](src)`: the parenthesised part is protected, the text is not. */
const LINK_TARGET = /\]\(\s*(?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;

/** `[id]: https://…` reference definitions. */
const LINK_DEFINITION = /^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+/gm;

/** A backtick run closed by a run of the same length, within one paragraph (CommonMark code span). */
const CODE_SPAN = /(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\r?\n)[\s\S])*?(?<!`)\1(?!`)/g;

export function findProtectedSpans(text: string): ProtectedSpan[] {
  const spans = findCode(text);
  // Later detectors run on a copy with code blanked out, so that a URL-looking
  // string inside a code block cannot start a span that leaks out of it.
  const masked = mask(text, spans);
  for (const match of masked.matchAll(LINK_TARGET)) {
    spans.push({ kind: 'link-target', start: match.index + 1, end: match.index + match[0].length });
  }
  for (const match of masked.matchAll(LINK_DEFINITION)) {
    const label = match[0].indexOf(']:') + 2;
    spans.push({ kind: 'link-target', start: match.index + label, end: match.index + match[0].length });
  }
  const placeholders = collect(masked, PLACEHOLDER, 'placeholder');
  appendAll(spans, placeholders, findAddresses(mask(masked, placeholders, 'x')));
  return spans.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Fenced code blocks, then inline code spans outside them. */
export function findCode(text: string): ProtectedSpan[] {
  const spans = findFencedBlocks(text);
  appendAll(spans, collect(mask(text, spans), CODE_SPAN, 'code'));
  return spans;
}

/**
 * URLs, bare host names and e-mail addresses, possibly overlapping (`www.` addresses
 * match as URL and as host, `mailto:` links hold an address). `text` should have its
 * code blanked out; template placeholders filled with non-blank characters, so that
 * `https://acme.com/orders/{{ id }}` is one address.
 */
export function findAddresses(text: string): ProtectedSpan[] {
  // Each pattern tried at every position of a text cost more than all the other rules
  // together, so it runs only on the words that hold what every match of it holds.
  const spans: ProtectedSpan[] = [];
  if (URL_HINT.test(text)) appendAll(spans, collectInWords(text, URL_HINTS, URL));
  if (text.includes('@')) appendAll(spans, collectInWords(text, AT_SIGNS, EMAIL, 'email'));
  if (hasDotInsideWord(text)) appendAll(spans, collectInWords(text, DOTS_BEFORE_LETTERS, HOST));
  return spans;
}

/** The patterns themselves, for the test that compares the word-by-word scan with a scan of the whole text. */
export const ADDRESS_PATTERNS: Readonly<Record<'url' | 'email' | 'host', RegExp>> = { url: URL, email: EMAIL, host: HOST };

const URL_HINT = /:\/\/|mailto:|www\./i;
const URL_HINTS = new RegExp(URL_HINT.source, 'gi');
const AT_SIGNS = /@/g;
/** A host name's dots are followed by a label or its top-level domain, which a sentence's last dot is not. */
const DOTS_BEFORE_LETTERS = /\.(?=[\p{L}\p{N}])/gu;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** "acme.com" has one; "The end. Next" has none. Every host name needs one. */
function hasDotInsideWord(text: string): boolean {
  for (let dot = text.indexOf('.', 1); dot !== -1; dot = text.indexOf('.', dot + 1)) {
    if (WORD_CHAR.test(text[dot - 1]!) && WORD_CHAR.test(text[dot + 1] ?? '')) return true;
  }
  return false;
}

/**
 * The matches of `pattern` (trimmed like a URL's end) in the words of `text` that hold a
 * match of `hint`. Equal to matching the whole text: no address holds a blank, and the
 * patterns look around only at letters and address punctuation, which a blank is not.
 * Single-threaded use, so the shared stateful patterns are safe once `lastIndex` is reset.
 */
function collectInWords(text: string, hint: RegExp, pattern: RegExp, kind: ProtectedKind = 'url'): ProtectedSpan[] {
  const spans: ProtectedSpan[] = [];
  hint.lastIndex = 0;
  for (let found = hint.exec(text); found !== null; found = hint.exec(text)) {
    let start = found.index;
    while (start > 0 && !isBlank(text.charCodeAt(start - 1))) start--;
    let end = found.index + found[0].length;
    while (end < text.length && !isBlank(text.charCodeAt(end))) end++;
    const word = text.slice(start, end);
    pattern.lastIndex = 0;
    for (let match = pattern.exec(word); match !== null; match = pattern.exec(word)) {
      const kept = trimUrlEnd(match[0]);
      if (kept.length > 0) spans.push({ kind, start: start + match.index, end: start + match.index + kept.length });
    }
    hint.lastIndex = end;
  }
  return spans;
}

const BLANK = /\s/;

/** Exactly the characters `\s` matches (ASCII ones without a regular expression). */
function isBlank(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x80 && BLANK.test(String.fromCharCode(code)));
}

/**
 * What a fenced block holds: the lines between its fences, without the indentation or
 * quote markers of the opening fence, trailing blanks or CR line ends. Two blocks with
 * the same body hold the same code, whatever their fence or info string.
 */
export function codeBlockBody(block: string): string {
  const lines = block.replace(/\r\n?/g, '\n').split('\n');
  const opening = FENCE_OPEN.exec(lines[0] ?? '');
  const prefix = opening ? opening[0].slice(0, opening[0].length - (opening[1]?.length ?? 0)) : '';
  const last = lines.at(-1) ?? '';
  const closing = lines.length > 1 ? FENCE_OPEN.exec(last) : null;
  const closed = closing?.[1] !== undefined && opening?.[1] !== undefined && isClosingFence(last, closing[1], opening[1]);
  return lines
    .slice(1, closed ? -1 : undefined)
    .map((line) => (line.startsWith(prefix) ? line.slice(prefix.length) : line).trimEnd())
    .join('\n');
}

/** Fenced code blocks, from the opening fence line to the closing one (or the end of the text, as in CommonMark). */
/** Whether `text` ends inside a fenced code block (one opened and not closed yet). */
export function endsInsideFence(text: string): boolean {
  return scanFences(text).unclosed;
}

function findFencedBlocks(text: string): ProtectedSpan[] {
  return scanFences(text).blocks;
}

/** Fenced blocks, an unclosed one running to the end of the text. */
function scanFences(text: string): { blocks: ProtectedSpan[]; unclosed: boolean } {
  const blocks: ProtectedSpan[] = [];
  let open: { start: number; fence: string } | null = null;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const fence = FENCE_OPEN.exec(line);
    if (open === null) {
      if (fence?.[1]) open = { start: lineStart, fence: fence[1] };
    } else if (fence?.[1] && isClosingFence(line, fence[1], open.fence)) {
      blocks.push({ kind: 'code-block', start: open.start, end: lineEnd });
      open = null;
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (open !== null) blocks.push({ kind: 'code-block', start: open.start, end: text.length });
  return { blocks, unclosed: open !== null };
}

function isClosingFence(line: string, fence: string, opening: string): boolean {
  return (
    fence[0] === opening[0] &&
    fence.length >= opening.length &&
    line.slice(line.indexOf(fence) + fence.length).trim() === ''
  );
}

export function collect(
  text: string,
  pattern: RegExp,
  kind: ProtectedKind,
  trim: (match: string) => string = (match) => match,
): ProtectedSpan[] {
  const spans: ProtectedSpan[] = [];
  for (const match of text.matchAll(pattern)) {
    const kept = trim(match[0]);
    if (kept.length > 0) spans.push({ kind, start: match.index, end: match.index + kept.length });
  }
  return spans;
}

/** Drops sentence punctuation after a URL, and a closing bracket that belongs to the prose around it. */
function trimUrlEnd(url: string): string {
  let end = url.length;
  for (;;) {
    const last = url[end - 1];
    if (last !== undefined && '.,;:!?*_~'.includes(last)) end--;
    else if (last === ')' && count(url.slice(0, end), '(') < count(url.slice(0, end), ')')) end--;
    else if (last === ']' && count(url.slice(0, end), '[') < count(url.slice(0, end), ']')) end--;
    else break;
  }
  return url.slice(0, end);
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

/** Blanks the spans with `filler` (keeping newlines and length), so offsets stay valid. */
export function mask(text: string, spans: readonly Span[], filler = ' '): string {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const span of sorted) {
    const start = Math.max(span.start, cursor);
    if (span.end <= start) continue;
    out += text.slice(cursor, start) + text.slice(start, span.end).replace(/[^\n]/g, filler);
    cursor = span.end;
  }
  return out + text.slice(cursor);
}
