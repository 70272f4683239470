/**
 * Preferred terms: `{ "customers": "members" }`. Whole words only, no stemming
 * ("customer" is a different entry), and the replacement takes the case of what it
 * replaces: "Customers" → "Members", "CUSTOMERS" → "MEMBERS".
 */
import type { PersonaRules, RuleViolation, VocabularyEntry } from './types.js';
import { applyEdits, quote, type OverlapTest } from './spans.js';
import { collapseWhitespace, findPhrases } from './word-match.js';

interface VocabularyHit {
  readonly start: number;
  readonly end: number;
  readonly found: string;
  readonly replacement: string;
}

function findVocabulary(
  text: string,
  vocabulary: readonly VocabularyEntry[],
  isProtected: OverlapTest,
  locale: string | null,
): VocabularyHit[] {
  const matches = findPhrases(
    text,
    vocabulary.map((entry) => entry.from),
    isProtected,
    locale,
  );
  return matches
    .map((match) => ({
      start: match.start,
      end: match.end,
      found: match.text,
      replacement: matchCase(match.text, vocabulary[match.phrase]!.to),
    }))
    .filter((hit) => hit.replacement !== hit.found);
}

export function vocabularyViolations(
  rules: PersonaRules,
  text: string,
  isProtected: OverlapTest,
): RuleViolation[] {
  return findVocabulary(text, rules.vocabulary, isProtected, rules.locale).map((hit) => ({
    rule: 'vocabulary',
    message: `uses ${quote(collapseWhitespace(hit.found))}; prefer ${quote(hit.replacement)}`,
    start: hit.start,
    end: hit.end,
  }));
}

export function fixVocabulary(
  rules: PersonaRules,
  text: string,
  isProtected: OverlapTest,
): { text: string; count: number } {
  const hits = findVocabulary(text, rules.vocabulary, isProtected, rules.locale);
  return {
    text: applyEdits(text, hits),
    count: hits.length,
  };
}

/**
 * Gives `replacement` the case of `found`. The replacement's own capitals (a brand
 * such as "GitHub") are never lowered: all-caps text makes it all-caps, a capitalised
 * first letter (sentence start, title) capitalises an all-lowercase replacement.
 */
export function matchCase(found: string, replacement: string): string {
  const cased = Array.from(found).filter((char) => char.toLowerCase() !== char.toUpperCase());
  const first = cased[0];
  if (first === undefined) return replacement;
  if (cased.length > 1 && cased.every((char) => char === char.toUpperCase())) {
    return replacement.toUpperCase();
  }
  if (first === first.toUpperCase() && replacement === replacement.toLowerCase()) {
    return replacement.replace(/\p{L}/u, (letter) => letter.toUpperCase());
  }
  return replacement;
}
