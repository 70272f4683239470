/**
 * The persona's rules as the studio shows them: their names in the words of the persona form,
 * and each rule's setting in `enforce` (off, or on with a severity). The rule ids and severities
 * are the service's own list (src/rules/types.ts, pure: the studio bundles it).
 */
import { RULE_IDS, type RuleId, SEVERITIES, type Severity } from '../../../src/rules/types.js';
import { isPlainObject, withAttribute } from './attributes.js';

export { RULE_IDS, type RuleId, SEVERITIES, type Severity };

const RULE_NAMES: Record<RuleId, string> = {
  avoid: 'Words to avoid',
  maxWords: 'Most words',
  maxSentences: 'Most sentences',
  preserve: 'Numbers, links, code and placeholders to keep',
  signOff: 'Sign-off',
  vocabulary: 'Vocabulary',
  casing: 'Spelling of names',
  emoji: 'Emoji',
  terms: 'Term base',
};
export const ruleName = (rule: string) => RULE_NAMES[rule as RuleId] ?? rule;

/** A rule's setting: off, or on with the severity its findings carry. */
export type RuleSetting = 'off' | Severity;

/** What `enforce` says of one rule: `false` off; `"recommended"`; `true`, `"required"` or nothing: required (the default). */
export function ruleSetting(enforce: unknown, rule: RuleId): RuleSetting {
  if (enforce === false) return 'off';
  const value = isPlainObject(enforce) ? enforce[rule] : undefined;
  if (value === false) return 'off';
  return value === 'recommended' ? 'recommended' : 'required';
}

/**
 * `enforce` with one rule changed; every other rule's value and the object's key order are kept.
 * Required is the default, so a rule set to it is left out, and an empty object is no `enforce`.
 * `false` (every rule off) becomes one `false` per rule first, so the others stay off.
 */
export function withRuleSetting(enforce: unknown, rule: RuleId, setting: RuleSetting): Record<string, unknown> | undefined {
  const current: Record<string, unknown> = enforce === false ? Object.fromEntries(RULE_IDS.map((id) => [id, false])) : isPlainObject(enforce) ? enforce : {};
  const value = setting === 'off' ? false : setting === 'recommended' ? 'recommended' : undefined;
  const next = withAttribute(current, rule, value);
  return Object.keys(next).length === 0 ? undefined : next;
}
