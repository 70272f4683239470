/**
 * Banned words and phrases. They are only ever flagged, never deleted or replaced:
 * removing a word mechanically breaks the sentence, so the model must rephrase.
 */
import type { PersonaRules, RuleViolation } from './types.js';
import { quote, type OverlapTest } from './spans.js';
import { findPhrases } from './word-match.js';

export function avoidViolations(
  rules: PersonaRules,
  text: string,
  isProtected: OverlapTest,
): RuleViolation[] {
  return findPhrases(text, rules.avoid, isProtected, rules.locale).map((match) => ({
    rule: 'avoid',
    message: `uses banned phrase ${quote(rules.avoid[match.phrase]!)}`,
    start: match.start,
    end: match.end,
  }));
}
