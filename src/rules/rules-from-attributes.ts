/**
 * Turns a persona's attributes into rules, through the attribute catalogue: a key feeds a rule
 * exactly when the system message states it (same parse, same normalization), so the model is
 * never asked for something the rules then ignore, nor checked against what it was never told.
 * A value of none of the key's shapes is ignored by both (see parseAttributes).
 *
 * Opting out is the catalogue's `enforce` key (one switch in one place): `false` disables every
 * rule, `{ "avoid": false }` single ones by rule id; `"recommended"` keeps a rule on with findings
 * that lower the score without failing the text. Per-rule object forms such as
 * `"avoid": { "terms": [...], "enforce": false }` are deliberately not supported: `{ "terms": … }`
 * would be ambiguous with a vocabulary entry for the word "terms".
 */
import { ATTRIBUTE_CATALOGUE, type AttributeKey, type AttributeValues, parseAttributes } from '../personas/catalogue/index.js';
import type { PersonaRules } from './types.js';

export function rulesFromAttributes(attributes: Record<string, unknown>): PersonaRules {
  return rulesFromValues(parseAttributes(attributes).values);
}

export function rulesFromValues(values: AttributeValues): PersonaRules {
  const off = values.enforce?.off;
  const enforced = <K extends AttributeKey>(key: K): AttributeValues[K] => {
    const rule = ATTRIBUTE_CATALOGUE[key].rule;
    return rule !== undefined && off?.has(rule) ? undefined : values[key];
  };
  return {
    vocabulary: enforced('vocabulary') ?? [],
    casing: enforced('casing') ?? [],
    avoid: enforced('avoid') ?? [],
    stripEmoji: enforced('emoji') === false,
    signOff: enforced('signOff') ?? null,
    maxWords: enforced('maxWords') ?? null,
    maxSentences: enforced('maxSentences') ?? null,
    locale: values.locale ?? null,
    // Needs no attribute: every persona's answers keep the facts of what they rewrite.
    preserve: !off?.has('preserve'),
    terms: enforced('terms') ?? [],
    recommended: [...(values.enforce?.recommended ?? [])].filter((rule) => !off?.has(rule)),
  };
}

export function hasRules(rules: PersonaRules): boolean {
  // Kept terms are checked against the original, like preserve.
  return hasTextRules(rules) || rules.preserve || rules.terms.some((entry) => entry.use === 'keep');
}

/** Rules that look at the text alone, without the original. */
export function hasTextRules(rules: PersonaRules): boolean {
  return (
    rules.vocabulary.length > 0 ||
    rules.casing.length > 0 ||
    rules.avoid.length > 0 ||
    rules.stripEmoji ||
    rules.signOff !== null ||
    rules.maxWords !== null ||
    rules.maxSentences !== null ||
    rules.terms.some((entry) => entry.use !== 'keep')
  );
}
