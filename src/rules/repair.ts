/**
 * What the rest of the service does with violations: decide whether the model must
 * try again, tell it what to fix, and summarise them for a response header.
 */
import { RULE_IDS, type RuleId, type RuleViolation } from './types.js';
import { quote } from './spans.js';
import { collapseWhitespace } from './word-match.js';
import { preserveRepairLine, type PreservedOriginal } from './preserve.js';

/**
 * Rules no mechanical fix can satisfy: removing a banned word or shortening needs
 * rewriting, and only the model knows where a lost number, placeholder or kept term
 * belongs. (The preferred terms of `terms` are fixed in place and never remain.)
 */
const MODEL_REPAIRED: ReadonlySet<RuleId> = new Set(['avoid', 'maxWords', 'maxSentences', 'preserve', 'terms']);

/** A term base of 2,000 entries could otherwise make a repair call of thousands of lines. */
const MAX_TERM_LINES = 30;

export function needsModelRepair(violations: readonly RuleViolation[]): boolean {
  return violations.some((violation) => MODEL_REPAIRED.has(violation.rule));
}

/** "avoid=2,maxWords=1": rule ids in a fixed order, '' when there is nothing to report. */
export function summarizeViolations(violations: readonly RuleViolation[]): string {
  return Object.entries(countViolations(violations))
    .map(([rule, count]) => `${rule}=${count}`)
    .join(',');
}

/** Rule id → count, in RULE_IDS order: `{ "avoid": 1, "maxWords": 1 }`. */
export function countViolations(violations: readonly RuleViolation[]): Partial<Record<RuleId, number>> {
  const counts = new Map<RuleId, number>();
  for (const violation of violations) counts.set(violation.rule, (counts.get(violation.rule) ?? 0) + 1);
  return Object.fromEntries(RULE_IDS.filter((rule) => counts.has(rule)).map((rule) => [rule, counts.get(rule)]));
}

/**
 * A short instruction for the model, one line per problem. Banned phrases are quoted as
 * they appear in `text` (the text the violations were found in), each once; lost items
 * as they appear in `original`, with the words around them there.
 */
export function repairInstructions(violations: readonly RuleViolation[], text: string, original?: PreservedOriginal): string {
  if (violations.length === 0) return '';
  const lines: string[] = [];

  const banned = new Map<string, string>();
  for (const violation of violations) {
    if (violation.rule !== 'avoid') continue;
    const found = collapseWhitespace(text.slice(violation.start, violation.end));
    if (found !== '' && !banned.has(found.toLowerCase())) banned.set(found.toLowerCase(), found);
  }
  if (banned.size > 0) {
    lines.push(`- Remove these banned phrases by rephrasing: ${[...banned.values()].map(quote).join(', ')}.`);
  }

  const lost = original === undefined ? null : preserveRepairLine(violations, original);
  if (lost !== null) lines.push(lost);

  const seen = new Set<string>();
  let termLines = 0;
  for (const rule of RULE_IDS) {
    for (const violation of violations) {
      if (violation.rule !== rule || seen.has(violation.message)) continue;
      if ((rule === 'avoid' && banned.size > 0) || (rule === 'preserve' && lost !== null)) continue;
      seen.add(violation.message);
      if (rule === 'terms' && ++termLines > MAX_TERM_LINES) continue;
      const action = rule === 'maxWords' || rule === 'maxSentences' ? ': shorten it' : '';
      lines.push(`- The text ${violation.message}${action}.`);
    }
  }
  if (termLines > MAX_TERM_LINES) lines.push(`- And ${termLines - MAX_TERM_LINES} more of the term base's entries, as its list in the persona says.`);
  return [
    "Revise the text to follow the persona's rules. Keep its meaning, language and formatting; change only what this list requires:",
    ...lines,
  ].join('\n');
}
