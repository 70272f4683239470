/**
 * The items of a text that a rewrite must keep (the `preserve` rule): numbers, URLs,
 * e-mail addresses, inline code, fenced code blocks and template placeholders. They
 * are found with the detectors that keep the fixes off code and links
 * (protected-spans.ts), so what a fix may not touch and what the model may not lose
 * are one definition.
 *
 * An item inside another counts once, as the outer one: a placeholder or number in a
 * code span is part of the code, a number in a URL part of the URL. Two items are the
 * same when their `key`s are equal:
 * - numbers by value as written (numbers.ts): `1,250.00` = `1250.00`;
 * - URLs as written, except `http://`/`https://` and one trailing slash
 *   (`acme.com/help` = `https://acme.com/help/`);
 * - e-mail addresses ignoring case;
 * - code by its content, verbatim: a span's text between the backticks, a block's
 *   lines between the fences (its fence and info string may change);
 * - placeholders verbatim (`{{name}}` ≠ `{{ name }}`: templates differ on blanks).
 */
import { codeBlockBody, collect, findAddresses, findCode, mask, type ProtectedSpan } from './protected-spans.js';
import { LIST_NUMBER, NUMBER, numberValue } from './numbers.js';
import { PLACEHOLDER } from './placeholders.js';
import { appendAll, overlapTest, type Span } from './spans.js';

export type PreservedKind = 'number' | 'url' | 'email' | 'code' | 'code-block' | 'placeholder';

export interface PreservedItem extends Span {
  readonly kind: PreservedKind;
  /** Equal for items that count as the same (see above); never shown to anyone. */
  readonly key: string;
}

/** Every item of `text`, in order, each outermost item once. */
export function findPreservedItems(text: string): PreservedItem[] {
  const code = findCode(text);
  const items = code.map((span) => codeItem(text, span));
  appendAll(items, itemsOutsideCode(text, mask(text, code)));
  return items.sort((a, b) => a.start - b.start);
}

/**
 * How many of each item (by key) `text` holds. A number, link or placeholder that the
 * model set in code formatting (`8080` for 8080) still counts: it is still there.
 */
export function countPreservedItems(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = ({ key }: PreservedItem) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const span of findCode(text)) add(codeItem(text, span));
  for (const item of itemsOutsideCode(text, text)) add(item);
  return counts;
}

/** `scan` is `text` with the spans to skip blanked out (same length, same offsets). */
function itemsOutsideCode(text: string, scan: string): PreservedItem[] {
  const placeholders = collect(scan, PLACEHOLDER, 'placeholder');
  // Filled, not blanked, so that `https://acme.com/orders/{{ id }}` stays one address.
  const addresses = outermost(findAddresses(mask(scan, placeholders, 'x')));
  const inAddress = overlapTest(addresses);
  const items: PreservedItem[] = addresses.map((span) => addressItem(text, span));
  for (const span of placeholders) {
    if (!inAddress(span.start, span.end)) items.push({ kind: 'placeholder', start: span.start, end: span.end, key: `p:${text.slice(span.start, span.end)}` });
  }
  const prose = mask(scan, [...addresses, ...placeholders]).replace(LIST_NUMBER, (marker) => ' '.repeat(marker.length));
  for (const match of prose.matchAll(NUMBER)) {
    const end = match.index + match[0].length;
    items.push({ kind: 'number', start: match.index, end, key: `n:${numberValue(match[0])}` });
  }
  return items;
}

/** Drops spans inside or overlapping an earlier (or, at the same start, longer) one. */
function outermost(spans: ProtectedSpan[]): ProtectedSpan[] {
  const kept: ProtectedSpan[] = [];
  let end = -1;
  for (const span of spans.sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (span.start < end) continue;
    kept.push(span);
    end = span.end;
  }
  return kept;
}

function addressItem(text: string, span: ProtectedSpan): PreservedItem {
  const written = text.slice(span.start, span.end);
  const key = span.kind === 'email' ? `e:${written.toLowerCase()}` : `u:${written.replace(/^https?:\/\//i, '').replace(/\/$/, '')}`;
  return { kind: span.kind === 'email' ? 'email' : 'url', start: span.start, end: span.end, key };
}

function codeItem(text: string, span: ProtectedSpan): PreservedItem {
  const written = text.slice(span.start, span.end);
  if (span.kind === 'code-block') return { kind: 'code-block', start: span.start, end: span.end, key: `c:${codeBlockBody(written)}` };
  return { kind: 'code', start: span.start, end: span.end, key: `c:${codeSpanBody(written)}` };
}

/** CommonMark: line ends become spaces; one blank on each side is stripped when both are there. */
function codeSpanBody(span: string): string {
  const ticks = span.length - span.replace(/^`+/, '').length;
  const inner = span.slice(ticks, span.length - ticks).replace(/\r?\n/g, ' ');
  return inner.length > 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '' ? inner.slice(1, -1) : inner;
}
