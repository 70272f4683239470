/**
 * The persona's sign-off, appended after a blank line when the text does not already
 * end with it. "Already ends with it" is tolerant, because models reformat freely:
 * whitespace and line breaks may differ ("Best,\n  The Acme Team"), letter case may
 * differ, and trailing punctuation may be added or dropped ("Cheers" for "Cheers!").
 * Tolerance errs on the side of "present": a duplicated sign-off is worse than a
 * slightly different one.
 */
import type { PersonaRules, RuleViolation } from './types.js';
import { quote, type Span } from './spans.js';
import { compiledPattern } from './compiled-patterns.js';
import { escapeRegExp } from './word-match.js';

const TRAILING_PUNCTUATION = /\p{P}+$/u;
const LETTER = /[\p{L}\p{N}\p{M}]/u;

function buildSignOffPattern(signOff: string): RegExp | null {
  const words = signOff.trim().split(/\s+/u);
  const last = words.at(-1) ?? '';
  if (last === '') return null;
  const bare = last.replace(TRAILING_PUNCTUATION, '');
  // A sign-off that is only punctuation ("—") keeps it; otherwise the punctuation is optional.
  if (bare !== '' || words.length > 1) words[words.length - 1] = bare;
  const body = words.filter((word) => word !== '').map(escapeRegExp).join(String.raw`\s+`);
  const edge = LETTER.test(Array.from(body)[0] ?? '') ? String.raw`(?<![\p{L}\p{N}\p{M}])` : '';
  return new RegExp(`${edge}${body}[\\p{P}\\s]*$`, 'iu');
}

const signOffPattern = (signOff: string): RegExp | null =>
  compiledPattern('signOff', signOff, () => buildSignOffPattern(signOff), (pattern) => pattern?.source.length ?? 0);

/** Where the sign-off sits at the end of `text`, or null when it is missing. */
export function signOffSpan(text: string, signOff: string): Span | null {
  const pattern = signOffPattern(signOff);
  if (pattern === null) return null;
  // Only the tail can hold it; looking there keeps the scan short on long texts.
  const from = Math.max(0, text.length - (signOff.length * 4 + 1000));
  const match = pattern.exec(text.slice(from));
  if (match === null) return null;
  const start = from + match.index;
  return { start, end: start + match[0].trimEnd().length };
}

export function signOffViolations(rules: PersonaRules, text: string): RuleViolation[] {
  if (rules.signOff === null || signOffSpan(text, rules.signOff) !== null) return [];
  return [
    {
      rule: 'signOff',
      message: `does not end with the sign-off ${quote(rules.signOff)}`,
      start: text.length,
      end: text.length,
    },
  ];
}

export function fixSignOff(rules: PersonaRules, text: string): { text: string; count: number } {
  if (rules.signOff === null || signOffSpan(text, rules.signOff) !== null) return { text, count: 0 };
  const body = text.trimEnd();
  return { text: body === '' ? rules.signOff : `${body}\n\n${rules.signOff}`, count: 1 };
}
