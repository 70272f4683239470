/**
 * Brand spellings: `["Acme Cloud", "GitHub"]`. Any whole-word, case-insensitive
 * occurrence spelled differently is rewritten to the canonical spelling, keeping the
 * original whitespace between its words (a phrase may wrap onto the next line).
 */
import type { PersonaRules, RuleViolation } from './types.js';
import { applyEdits, quote, type OverlapTest } from './spans.js';
import { collapseWhitespace, findPhrases } from './word-match.js';

interface CasingHit {
  readonly start: number;
  readonly end: number;
  readonly found: string;
  readonly canonical: string;
}

function findMiscased(text: string, casing: readonly string[], isProtected: OverlapTest): CasingHit[] {
  return findPhrases(text, casing, isProtected)
    .map((match) => ({
      start: match.start,
      end: match.end,
      found: match.text,
      canonical: collapseWhitespace(casing[match.phrase]!),
    }))
    .filter((hit) => collapseWhitespace(hit.found) !== hit.canonical);
}

export function casingViolations(
  rules: PersonaRules,
  text: string,
  isProtected: OverlapTest,
): RuleViolation[] {
  return findMiscased(text, rules.casing, isProtected).map((hit) => ({
    rule: 'casing',
    message: `writes ${quote(collapseWhitespace(hit.found))}; the spelling is ${quote(hit.canonical)}`,
    start: hit.start,
    end: hit.end,
  }));
}

export function fixCasing(
  rules: PersonaRules,
  text: string,
  isProtected: OverlapTest,
): { text: string; count: number } {
  const hits = findMiscased(text, rules.casing, isProtected);
  const edits = hits.map((hit) => ({
    start: hit.start,
    end: hit.end,
    replacement: respell(hit.found, hit.canonical),
  }));
  return { text: applyEdits(text, edits), count: hits.length };
}

/** Replaces the words of `found` with those of `canonical`, keeping the whitespace between them. */
function respell(found: string, canonical: string): string {
  const words = canonical.split(' ');
  let next = 0;
  return found
    .split(/(\s+)/u)
    .map((part, i) => (i % 2 === 0 ? (words[next++] ?? part) : part))
    .join('');
}
