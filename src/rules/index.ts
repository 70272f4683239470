/**
 * Persona rules engine: deterministic checks and fixes applied to a model's answer
 * (after refinement) and to any text (the `POST /v1/check` lint endpoint). Pure
 * functions, no I/O.
 *
 * Rules come from `persona.attributes`; all are optional and a malformed value is
 * ignored rather than rejected:
 *
 * | attribute      | example                        | effect                                   |
 * |----------------|--------------------------------|------------------------------------------|
 * | `vocabulary`   | `{ "customers": "members" }`   | replaced, in the case of what it replaces |
 * | `casing`       | `["Acme Cloud", "GitHub"]`     | respelled ("github" → "GitHub")          |
 * | `avoid`        | `["synergy"]` or `"synergy"`   | flagged only; the model must rephrase    |
 * | `emoji`        | `"none"` (any case) or `false` | emoji removed, spacing tidied            |
 * | `signOff`      | `"Best,\nThe Acme Team"`       | appended after a blank line if missing   |
 * | `maxWords`     | `120` (positive integer)       | flagged only; the model must shorten     |
 * | `maxSentences` | `6` (positive integer)         | flagged only; the model must shorten     |
 *
 * Opting out: `"enforce": false` disables every rule; `"enforce": { "avoid": false }`
 * disables single rules by id (see rules-from-attributes.ts for why there is no
 * per-rule `{ "terms": …, "enforce": false }` form).
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
export type { PersonaRules, RuleId, RuleViolation, VocabularyEntry } from './types.js';
export { RULE_IDS } from './types.js';
export { rulesFromAttributes, hasRules } from './rules-from-attributes.js';
export { checkText, applyFixes, enforce } from './engine.js';
export { needsModelRepair, repairInstructions, summarizeViolations } from './repair.js';
