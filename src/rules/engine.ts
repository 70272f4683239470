/**
 * Runs the rules over a text: `checkText` lints, `applyFixes` rewrites what can be
 * rewritten mechanically, `enforce` does both.
 *
 * Fixes run in a fixed order, each on the previous one's output:
 *   emoji → vocabulary → terms → casing → sign-off.
 * Emoji go first so that words an emoji separated are seen whole by the word rules;
 * casing follows vocabulary so that a replacement is spelled canonically; the sign-off
 * comes last so that it is checked against the final text. A sign-off already at the
 * end of the text is the persona's own wording and is protected from the other rules,
 * which keeps `enforce` idempotent.
 */
import type { PersonaRules, RuleFinding, RuleViolation } from './types.js';
import { RULE_IDS } from './types.js';
import { appendAll, overlapTest, type OverlapTest } from './spans.js';
import { findProtectedSpans, type ProtectedSpan } from './protected-spans.js';
import { signOffSpan, signOffViolations, fixSignOff } from './sign-off.js';
import { vocabularyViolations, fixVocabulary } from './vocabulary.js';
import { casingViolations, fixCasing } from './casing.js';
import { avoidViolations } from './avoid.js';
import { emojiViolations, fixEmoji } from './emoji.js';
import { lengthViolations } from './length.js';
import { preserveViolations, type PreservedOriginal } from './preserve.js';
import { fixTerms, keepViolations, rewritesTerms, termViolations } from './terms.js';
import { hasTextRules } from './rules-from-attributes.js';

/**
 * One fix can expose another: removing an emoji can join two words into a vocabulary
 * term or merge two backtick runs (changing what is code), and a replacement is never
 * re-scanned within a pass, so chains such as `{ "clients": "customers", "customers":
 * "members" }` need a second pass. The fixes therefore repeat until the text stops
 * changing. Bounded, because a vocabulary cycle (`{ "a": "b", "b": "a" }`) never settles.
 */
const MAX_PASSES = 4;

type Fix = (rules: PersonaRules, text: string, isProtected: OverlapTest) => { text: string; count: number };

const FIXES: ReadonlyArray<{ rule: 'emoji' | 'vocabulary' | 'terms' | 'casing'; fix: Fix; applies: (rules: PersonaRules) => boolean }> = [
  { rule: 'emoji', fix: fixEmoji, applies: (rules) => rules.stripEmoji },
  { rule: 'vocabulary', fix: fixVocabulary, applies: (rules) => rules.vocabulary.length > 0 },
  { rule: 'terms', fix: fixTerms, applies: rewritesTerms },
  { rule: 'casing', fix: fixCasing, applies: (rules) => rules.casing.length > 0 },
];

function protectedSpans(rules: PersonaRules, text: string): ProtectedSpan[] {
  const spans = findProtectedSpans(text);
  const signOff = rules.signOff === null ? null : signOffSpan(text, rules.signOff);
  if (signOff !== null) spans.push({ kind: 'sign-off', ...signOff });
  return spans;
}

/**
 * Violations of the text's own rules in text order, then (given the original it was
 * rewritten from) the items of the original it lost, in the original's order.
 */
export function checkText(rules: PersonaRules, text: string, original?: PreservedOriginal): RuleFinding[] {
  const violations = hasTextRules(rules) ? textViolations(rules, text) : [];
  if (original !== undefined) {
    if (rules.preserve) appendAll(violations, preserveViolations(original, text));
    appendAll(violations, keepViolations(rules, original.text, text));
  }
  return withSeverities(rules, violations);
}

/** In place: a text may have hundreds of thousands of findings, each weighed by the persona's `enforce`. */
function withSeverities(rules: PersonaRules, violations: RuleViolation[]): RuleFinding[] {
  const findings = violations as RuleFinding[];
  for (const finding of findings) finding.severity = rules.recommended.includes(finding.rule) ? 'recommended' : 'required';
  return findings;
}

function textViolations(rules: PersonaRules, text: string): RuleViolation[] {
  const spans = protectedSpans(rules, text);
  const isProtected = overlapTest(spans);
  const violations = [
    ...vocabularyViolations(rules, text, isProtected),
    ...termViolations(rules, text, isProtected),
    ...casingViolations(rules, text, isProtected),
    ...avoidViolations(rules, text, isProtected),
    ...emojiViolations(rules, text, isProtected),
    ...signOffViolations(rules, text),
    ...lengthViolations(rules, text, spans),
  ];
  return violations.sort(
    (a, b) => a.start - b.start || a.end - b.end || RULE_IDS.indexOf(a.rule) - RULE_IDS.indexOf(b.rule),
  );
}

export function applyFixes(rules: PersonaRules, text: string): { text: string; fixed: Record<string, number> } {
  const { text: fixedText, fixed } = applyWordFixes(rules, text);
  const signOff = fixSignOff(rules, fixedText);
  if (signOff.count > 0) fixed['signOff'] = signOff.count;
  return { text: signOff.text, fixed };
}

/**
 * Whether the fixes can change a text at all (emoji, vocabulary, preferred terms, casing, a sign-off).
 * Without them the rules only check (`preserve`, `avoid`, lengths, forbidden and kept terms), and a
 * stream shows what arrives.
 */
export function changesText(rules: PersonaRules): boolean {
  return rules.signOff !== null || FIXES.some(({ applies }) => applies(rules));
}

/** The fixes inside the text (emoji, vocabulary, terms, casing), without the sign-off: what a stream can apply as it goes. */
export function applyWordFixes(rules: PersonaRules, text: string): { text: string; fixed: Record<string, number> } {
  const fixed: Record<string, number> = {};
  const fixes = FIXES.filter(({ applies }) => applies(rules));
  let current = text;
  // Finding protected spans is the costly scan: redone only when a fix changed the text.
  let isProtected: OverlapTest | undefined;
  for (let pass = 0; pass < MAX_PASSES && fixes.length > 0; pass++) {
    const before = current;
    for (const { rule, fix } of fixes) {
      isProtected ??= overlapTest(protectedSpans(rules, current));
      const result = fix(rules, current, isProtected);
      if (result.count === 0) continue;
      fixed[rule] = (fixed[rule] ?? 0) + result.count;
      current = result.text;
      isProtected = undefined;
    }
    if (current === before) break;
  }
  return { text: current, fixed };
}

/** `original`: what `text` was rewritten from, for the `preserve` rule. */
export function enforce(
  rules: PersonaRules,
  text: string,
  original?: PreservedOriginal,
): { text: string; fixed: Record<string, number>; remaining: RuleFinding[] } {
  const { text: fixedText, fixed } = applyFixes(rules, text);
  return { text: fixedText, fixed, remaining: checkText(rules, fixedText, original) };
}
