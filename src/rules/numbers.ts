/**
 * Numbers in prose, and when two of them are the same number.
 *
 * Compared by value as written: grouping separators and the style of the decimal mark
 * do not matter, digits and decimal places do. `1,250.00`, `1250.00`, `1.250,00` and
 * `1 250,00` are one number; `1,250` and `1,205` are not, nor are `5.10` and `5.1`
 * (a version "20.10" is not "20.1") or `0042` and `42` (a leading zero marks an
 * identifier: order numbers, postal codes). Digits of any script count, `١٢٣` is `123`.
 * A run that is no number in any locale (`2.3.1`, `192.168.0.1`, `23.11.2026`) is
 * compared exactly as written.
 *
 * What is a number: a run of digits not glued to a preceding letter (`H2O`, `ES2022`,
 * `i18n` are names) except a version's lone `v` (`v2.3.1` holds `2.3.1`); a following
 * unit or suffix is fine (`5GB`, `10am`, `1st`), but not letters followed by more
 * digits (`3f2a1b` is a hash). In scripts written without spaces (Chinese, Japanese,
 * Thai…) letters are no edge, so `合計1,250円` holds `1,250`. Signs and currency
 * symbols are not part of the number: a dash before digits is more often a range or
 * a list marker than a minus.
 */
import { UNSPACED } from './word-match.js';

const WORD = String.raw`[\p{L}\p{N}\p{M}_]`;
/** Grouping-only separators: no-break spaces (French, …) and apostrophes (Swiss). */
const GROUPING = String.raw`\u00A0\u202F'’`;
/** A letter of a script written with spaces. */
const SPACED_LETTER = String.raw`(?:(?!${UNSPACED})[\p{L}\p{M}_])`;

/**
 * The digit run is matched inside a look-ahead and then consumed by back-reference,
 * which makes it atomic: when the trailing check fails, the engine cannot retry a
 * shorter prefix (`3f2a` must not yield `3`), and every position is tried once.
 */
export const NUMBER = new RegExp(
  // The leading look-ahead lets every position that holds no digit fail at once.
  String.raw`(?=\p{Nd})(?:(?<!${WORD})|(?<=${UNSPACED})|(?<=(?<!${WORD})[vV]))` +
    String.raw`(?<!\p{Nd}[.,${GROUPING}])` +
    String.raw`(?=(\p{Nd}+(?:[.,]\p{Nd}+|[${GROUPING}]\p{Nd}{3}(?!\p{Nd}))*))\1` +
    String.raw`(?!${SPACED_LETTER}+\p{Nd})`,
  'gu',
);

/** `1.` or `2)` opening a line: markdown list numbering, renumbered freely, not a fact. */
export const LIST_NUMBER = /^[ \t>]*\d{1,9}[.)](?=[ \t]|\r?$)/gm;

const SEPARATOR = /[.,\u00A0\u202F'’]/u;
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/gu;
const IS_DIGIT = /^\p{Nd}$/u;

/** The value of a number as written (see above), as a string: `1,250.00` → `1250.00`. */
export function numberValue(written: string): string {
  const ascii = written.replace(NON_ASCII_DIGIT, asciiDigit);
  const groups = ascii.split(SEPARATOR);
  if (groups.length === 1) return ascii;
  const separators = ascii.replace(/\d/g, '');
  const last = separators.at(-1)!;
  const lastIsOnly = !separators.slice(0, -1).includes(last);
  // "1,250.00" and "1.250,00": the last mark is the decimal one when it differs from
  // the others; a lone mark before exactly three digits ("1,250", "1.250") groups.
  const decimal =
    (last === '.' || last === ',') &&
    lastIsOnly &&
    (separators.length > 1 || !(groups[1]!.length === 3 && groups[0]!.length <= 3 && groups[0] !== '0'));
  const integer = decimal ? groups.slice(0, -1) : groups;
  const grouping = decimal ? separators.slice(0, -1) : separators;
  if (integer.length > 1 && !isGrouping(integer, grouping)) return ascii;
  return decimal ? `${integer.join('')}.${groups.at(-1)}` : integer.join('');
}

/** One separator throughout; the first group 1–3 digits, the last 3, any between 2 or 3 (Indian lakh grouping). */
function isGrouping(groups: readonly string[], separators: string): boolean {
  if (!separators.split('').every((separator) => separator === separators[0])) return false;
  return groups.every((group, index) => {
    if (index === 0) return group.length <= 3;
    if (index === groups.length - 1) return group.length === 3;
    return group.length === 2 || group.length === 3;
  });
}

const asciiDigits = new Map<string, string>();

/**
 * Unicode encodes every script's decimal digits as runs of ten, 0 to 9, and where runs
 * touch (mathematical digits) each still starts at a multiple of ten from the first.
 */
function asciiDigit(digit: string): string {
  let ascii = asciiDigits.get(digit);
  if (ascii !== undefined) return ascii;
  const codePoint = digit.codePointAt(0)!;
  let first = codePoint;
  while (IS_DIGIT.test(String.fromCodePoint(first - 1))) first--;
  ascii = String((codePoint - first) % 10);
  asciiDigits.set(digit, ascii);
  return ascii;
}
