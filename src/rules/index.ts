/**
 * Persona rules engine: deterministic checks and fixes applied to a model's answer
 * (after refinement) and to any text (the `POST /v1/check` lint endpoint). Pure
 * functions, no I/O.
 *
 * Rules come from `persona.attributes`, read through the attribute catalogue
 * (src/personas/catalogue/attributes.ts: each key's shapes, the rule it feeds and what
 * that rule does), so the prompt and the rules always agree on what a value means. Only
 * vocabulary, casing, emoji and signOff are fixed in place; avoid, maxWords and
 * maxSentences are flagged for the model to repair. `enforce` turns rules off.
 *
 * `preserve` needs no attribute: every persona's answers must keep the numbers, URLs,
 * e-mail addresses, code and template placeholders of the content (preserved-items.ts),
 * flagged for the model to repair, unless `"enforce": { "preserve": false }`.
 *
 * Matching decisions, shared by every word rule (see word-match.ts):
 * - whole words in any script, case-insensitive; no stemming ("customer" ≠ "customers");
 * - the words of a phrase may be separated by any blanks and one line break;
 * - code blocks, inline code, URLs, e-mail addresses, host names and markdown link
 *   targets are never changed or flagged (protected-spans.ts);
 * - offsets are UTF-16 code units, so `text.slice(start, end)` is the offending span.
 *
 * `applyFixes` repeats its fixes until the text stops changing, so `enforce` is
 * idempotent: running it on its own output changes nothing (engine.ts).
 */
export type { PersonaRules, RuleFinding, RuleId, RuleViolation, Severity, VocabularyEntry } from './types.js';
export { RULE_IDS, SEVERITIES } from './types.js';
export { rulesFromAttributes, rulesFromValues, hasRules } from './rules-from-attributes.js';
export { checkText, applyFixes, applyWordFixes, changesText, enforce } from './engine.js';
export { endsInsideFence, findCode, mask } from './protected-spans.js';
export { countViolations, needsModelRepair, repairInstructions, summarizeViolations } from './repair.js';
export { originalFor, preservedOriginal, type PreservedOriginal } from './preserve.js';
export { findPreservedItems, type PreservedItem, type PreservedKind } from './preserved-items.js';
