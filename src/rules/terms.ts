/**
 * The `terms` rule, a term base (src/personas/catalogue/term-base.ts):
 * - `preferred`: each of `replaces` is rewritten to the term, as `vocabulary` does (the case of
 *   what it replaces kept, and an inflected word's ending put on the term: "logins" → "sign-ins");
 * - `forbidden`: flagged with the entry's suggestion, for the model to rephrase, as `avoid`;
 * - `keep`: the term must be in the answer as often as in the original, as `preserve` (product
 *   names, do-not-translate); findings point into the original.
 * All entries are matched at once (term-match.ts), the longest winning, so a kept or forbidden
 * phrase is never rewritten by a shorter preferred entry inside it.
 */
import type { PersonaRules, RuleViolation } from './types.js';
import { applyEdits, quote, type OverlapTest } from './spans.js';
import { collapseWhitespace } from './word-match.js';
import { matchCase } from './vocabulary.js';
import { findTerms, inflect, termMatcher, type TermMatch } from './term-match.js';
import type { TermEntry } from '../personas/catalogue/index.js';

const noneProtected: OverlapTest = () => false;

export const rewritesTerms = (rules: PersonaRules): boolean => rules.terms.some((entry) => entry.replaces.length > 0);
export const keepsTerms = (rules: PersonaRules): boolean => rules.terms.some((entry) => entry.use === 'keep');

interface Rewrite {
  readonly start: number;
  readonly end: number;
  readonly found: string;
  readonly replacement: string;
  readonly entry: TermEntry;
}

function rewritten(entry: TermEntry, match: TermMatch): string {
  const term = inflect(entry.term, match.ending, match.apostrophe);
  return entry.caseSensitive ? term : matchCase(match.text, term);
}

function rewrites(entries: readonly TermEntry[], matches: readonly TermMatch[]): Rewrite[] {
  const found: Rewrite[] = [];
  for (const match of matches) {
    const entry = entries[match.entry]!;
    if (entry.use !== 'preferred' || match.isTerm) continue;
    const replacement = rewritten(entry, match);
    if (replacement !== match.text) found.push({ start: match.start, end: match.end, found: match.text, replacement, entry });
  }
  return found;
}

/** Preferred terms not used yet, and forbidden terms used, in text order. */
export function termViolations(rules: PersonaRules, text: string, isProtected: OverlapTest): RuleViolation[] {
  if (rules.terms.length === 0) return [];
  const matches = findTerms(text, termMatcher(rules.terms, rules.locale), isProtected);
  const violations: RuleViolation[] = [];
  for (const match of matches) {
    const entry = rules.terms[match.entry]!;
    if (entry.use === 'forbidden') {
      const instead = entry.suggest === undefined ? '' : `; write ${quote(entry.suggest)} instead`;
      violations.push({ rule: 'terms', term: entry.term, message: `uses the forbidden term ${quote(collapseWhitespace(match.text))}${instead}`, start: match.start, end: match.end });
    } else if (entry.use === 'preferred' && !match.isTerm) {
      const replacement = rewritten(entry, match);
      if (replacement === match.text) continue;
      violations.push({ rule: 'terms', term: entry.term, message: `uses ${quote(collapseWhitespace(match.text))}; prefer ${quote(replacement)}`, start: match.start, end: match.end });
    }
  }
  return violations;
}

export function fixTerms(rules: PersonaRules, text: string, isProtected: OverlapTest): { text: string; count: number } {
  const edits = rewrites(rules.terms, findTerms(text, termMatcher(rules.terms, rules.locale), isProtected));
  return { text: applyEdits(text, edits), count: edits.length };
}

/**
 * Kept terms the text has fewer times than the original, each missing occurrence pointing into
 * the original (the last ones: which of equal occurrences the model dropped is unknowable).
 * Counted everywhere, code included: a product name in a code span is still there.
 */
export function keepViolations(rules: PersonaRules, original: string, text: string): RuleViolation[] {
  if (!keepsTerms(rules)) return [];
  const matcher = termMatcher(rules.terms, rules.locale);
  const inOriginal = new Map<number, TermMatch[]>();
  for (const match of findTerms(original, matcher, noneProtected)) {
    if (rules.terms[match.entry]!.use !== 'keep') continue;
    const same = inOriginal.get(match.entry);
    if (same) same.push(match);
    else inOriginal.set(match.entry, [match]);
  }
  if (inOriginal.size === 0) return [];
  const kept = new Map<number, number>();
  for (const match of findTerms(text, matcher, noneProtected)) kept.set(match.entry, (kept.get(match.entry) ?? 0) + 1);
  const violations: RuleViolation[] = [];
  for (const [entry, occurrences] of inOriginal) {
    const missing = occurrences.length - (kept.get(entry) ?? 0);
    if (missing <= 0) continue;
    const { term } = rules.terms[entry]!;
    const times = occurrences.length > 1 ? ` (${occurrences.length} times there, ${occurrences.length - missing} here)` : '';
    const message = `lost the term ${quote(term)} of the original${times}; keep it exactly as written`;
    for (const match of occurrences.slice(-missing)) violations.push({ rule: 'terms', term, message, start: match.start, end: match.end });
  }
  return violations.sort((a, b) => a.start - b.start);
}
