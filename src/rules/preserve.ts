/**
 * The `preserve` rule: every item of the original (preserved-items.ts) must appear in
 * the text at least as many times as in the original. Only the model can put a lost
 * item back where it belongs, so this is flagged and repaired, never fixed.
 *
 * Violations point into the original (the item that went missing), not into the text.
 * When an item occurs several times and some are lost, the last ones are reported:
 * which of the equal occurrences the model dropped is unknowable.
 */
import type { PersonaRules, RuleViolation } from './types.js';
import { keepsTerms } from './terms.js';
import { countPreservedItems, findPreservedItems, type PreservedItem } from './preserved-items.js';
import { quote } from './spans.js';
import { collapseWhitespace } from './word-match.js';

/** An original text with its items, found once and compared with every answer. */
export interface PreservedOriginal {
  readonly text: string;
  readonly items: readonly PreservedItem[];
}

export function preservedOriginal(text: string): PreservedOriginal {
  return { text, items: findPreservedItems(text) };
}

/**
 * What a text rewritten from `text` is checked against, when the rules need it: its items for
 * `preserve`, the text itself for the kept terms of `terms` (then without items, which would
 * count in the score's facts though nothing checks them).
 */
export function originalFor(rules: PersonaRules, text: string): PreservedOriginal | undefined {
  if (rules.preserve) return preservedOriginal(text);
  return keepsTerms(rules) ? { text, items: [] } : undefined;
}

export function preserveViolations(original: PreservedOriginal, text: string): RuleViolation[] {
  if (original.items.length === 0) return [];
  const kept = countPreservedItems(text);
  const byKey = new Map<string, PreservedItem[]>();
  for (const item of original.items) {
    const same = byKey.get(item.key);
    if (same) same.push(item);
    else byKey.set(item.key, [item]);
  }
  const violations: RuleViolation[] = [];
  for (const [key, occurrences] of byKey) {
    const missing = occurrences.length - (kept.get(key) ?? 0);
    if (missing <= 0) continue;
    const times = occurrences.length > 1 ? ` (${occurrences.length} times in the original, ${occurrences.length - missing} here)` : '';
    const message = `is missing ${describe(occurrences[0]!, original.text)} of the original${times}`;
    for (const item of occurrences.slice(-missing)) violations.push({ rule: 'preserve', message, start: item.start, end: item.end });
  }
  return violations.sort((a, b) => a.start - b.start);
}

/**
 * The repair instruction for lost items: each named once, as written in the original,
 * with the words around it there, so the model can put it back where it belongs.
 */
export function preserveRepairLine(violations: readonly RuleViolation[], original: PreservedOriginal): string | null {
  const lost = new Set(violations.filter((violation) => violation.rule === 'preserve').map((violation) => violation.start));
  const named = new Map<string, { item: PreservedItem; count: number }>();
  for (const item of original.items) {
    if (!lost.has(item.start)) continue;
    const seen = named.get(item.key);
    if (seen) seen.count++;
    else named.set(item.key, { item, count: 1 });
  }
  if (named.size === 0) return null;
  const listed = [...named.values()].slice(0, MAX_NAMED);
  const more = named.size > MAX_NAMED ? `; and ${named.size - MAX_NAMED} more` : '';
  const names = listed.map(({ item, count }) => {
    const times = count > 1 ? ` ${count} times` : '';
    const around = item.kind === 'code-block' ? '' : ` (in ${quote(excerpt(original.text, item))})`;
    return `${describe(item, original.text)}${times}${around}`;
  });
  return `- Put back what the text lost from the original, exactly as written there: ${names.join('; ')}${more}.`;
}

/** A text that lost hundreds of items gets a repair call of bounded size all the same. */
const MAX_NAMED = 30;

const NOUNS: Record<PreservedItem['kind'], string> = {
  number: 'the number',
  url: 'the link',
  email: 'the e-mail address',
  code: 'the code',
  'code-block': 'the code block',
  placeholder: 'the placeholder',
};

function describe(item: PreservedItem, original: string): string {
  return `${NOUNS[item.kind]} ${label(original.slice(item.start, item.end))}`;
}

const LABEL_MAX = 80;

/** The item as written, quoted; a long one (a code block) cut after two lines or 80 characters. */
function label(written: string): string {
  const head = written.split('\n', 2).join('\n');
  const cut = head.length > LABEL_MAX ? head.slice(0, LABEL_MAX) : head;
  return quote(cut.length < written.length ? `${cut}…` : written);
}

const CONTEXT = 30;

/** Up to ~30 characters each side of the item within its paragraph, cut at blanks, on one line. */
function excerpt(text: string, item: { start: number; end: number }): string {
  const windowStart = Math.max(0, item.start - CONTEXT);
  const windowEnd = Math.min(text.length, item.end + CONTEXT);
  const before = text.slice(windowStart, item.start);
  const after = text.slice(item.end, windowEnd);
  const breakBefore = before.lastIndexOf('\n\n');
  const breakAfter = after.indexOf('\n\n');
  let head = breakBefore === -1 ? before : before.slice(breakBefore + 2);
  let tail = breakAfter === -1 ? after : after.slice(0, breakAfter);
  const cutHead = breakBefore === -1 && windowStart > 0;
  const cutTail = breakAfter === -1 && windowEnd < text.length;
  if (cutHead) head = head.slice(head.search(/\s/) + 1);
  const lastBlank = cutTail ? tail.search(/\s\S*$/) : -1;
  if (lastBlank > 0) tail = tail.slice(0, lastBlank);
  const written = text.slice(item.start, item.end);
  return `${cutHead ? '…' : ''}${collapseWhitespace(head + written + tail)}${cutTail ? '…' : ''}`;
}
