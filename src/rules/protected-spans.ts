/**
 * Regions of a text that rules must neither change nor flag: code, URLs, e-mail
 * addresses and markdown link targets. Rewriting "customers" inside
 * `https://acme.com/customers` or inside a code sample would break it.
 *
 * Detection is deliberately generous: wrongly protecting a few words only means a
 * missed fix, while wrongly editing a URL or code breaks the answer.
 */
import type { Span } from './spans.js';

export type ProtectedKind = 'code-block' | 'code' | 'link-target' | 'url' | 'email' | 'sign-off';

export interface ProtectedSpan extends Span {
  readonly kind: ProtectedKind;
}

const FENCE_OPEN = /^[ \t>]*(`{3,}|~{3,})/;

/** Everything a URL, e-mail or host can be made of; it stops at whitespace, quotes and angle brackets. */
const URL_CHARS = "[^\\s<>\"'`]";

/**
 * Scheme URLs and www. addresses. The scheme is bounded in length so a long run of
 * letters cannot make the scan quadratic; it has no look-behind, so removing an emoji
 * right before a URL can only make the protected span start earlier, never disappear.
 */
const URL = new RegExp(
  String.raw`(?:[a-z][a-z0-9+-]{0,31}:\/\/|mailto:)${URL_CHARS}+` +
    String.raw`|(?<![\p{L}\p{N}@./-])www\.${URL_CHARS}+`,
  'giu',
);

const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

/**
 * Bare host names ("customers.acme.com", "acme.io/pricing"). Without a path, only
 * common top-level domains count, so that names like "Node.js" or "index.ts" stay
 * ordinary text that casing rules can fix.
 */
const COMMON_TLDS =
  'com|org|net|edu|gov|int|io|co|ai|app|dev|cloud|info|biz|me|tv|us|uk|eu|de|fr|es|it|nl|be|ch|at|' +
  'se|dk|fi|pl|cz|pt|ie|ca|au|nz|jp|cn|in|br|ru|gg|ly|sh|xyz|tech|online|site|page';
const HOST = new RegExp(
  String.raw`(?<![\p{L}\p{N}_@./-])(?:[\p{L}\p{N}][\p{L}\p{N}-]*\.)+` +
    String.raw`(?:(?:${COMMON_TLDS})(?![\p{L}\p{N}_-])(?:[/?#:]${URL_CHARS}*)?|[a-z]{2,24}\/${URL_CHARS}*)`,
  'giu',
);

/** `[text](target "title")` and `![alt](src)`: the parenthesised part is protected, the text is not. */
const LINK_TARGET = /\]\(\s*(?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;

/** `[id]: https://…` reference definitions. */
const LINK_DEFINITION = /^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+/gm;

/** A backtick run closed by a run of the same length, within one paragraph (CommonMark code span). */
const CODE_SPAN = /(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\r?\n)[\s\S])*?(?<!`)\1(?!`)/g;

export function findProtectedSpans(text: string): ProtectedSpan[] {
  const spans: ProtectedSpan[] = findFencedBlocks(text);
  // Later detectors run on a copy with code blanked out, so that a URL-looking
  // string inside a code block cannot start a span that leaks out of it.
  let masked = mask(text, spans);
  spans.push(...collect(masked, CODE_SPAN, 'code'));
  masked = mask(masked, spans);
  for (const match of masked.matchAll(LINK_TARGET)) {
    spans.push({ kind: 'link-target', start: match.index + 1, end: match.index + match[0].length });
  }
  for (const match of masked.matchAll(LINK_DEFINITION)) {
    const label = match[0].indexOf(']:') + 2;
    spans.push({ kind: 'link-target', start: match.index + label, end: match.index + match[0].length });
  }
  spans.push(...collect(masked, URL, 'url', trimUrlEnd));
  spans.push(...collect(masked, EMAIL, 'email', trimUrlEnd));
  spans.push(...collect(masked, HOST, 'url', trimUrlEnd));
  return spans.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Fenced code blocks, from the opening fence line to the closing one (or the end of the text, as in CommonMark). */
function findFencedBlocks(text: string): ProtectedSpan[] {
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
  return blocks;
}

function isClosingFence(line: string, fence: string, opening: string): boolean {
  return (
    fence[0] === opening[0] &&
    fence.length >= opening.length &&
    line.slice(line.indexOf(fence) + fence.length).trim() === ''
  );
}

function collect(
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

/** Blanks the spans with spaces (keeping newlines and length), so offsets stay valid. */
function mask(text: string, spans: readonly Span[]): string {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const span of sorted) {
    const start = Math.max(span.start, cursor);
    if (span.end <= start) continue;
    out += text.slice(cursor, start) + text.slice(start, span.end).replace(/[^\n]/g, ' ');
    cursor = span.end;
  }
  return out + text.slice(cursor);
}
