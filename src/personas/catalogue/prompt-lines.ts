/**
 * How the catalogue's entries phrase themselves in the system message: labelled lines of plain
 * text. A persona's string is data under its label, never a line of the prompt's own: on one line
 * after the label, or indented below it, so it cannot start a heading or a rule of the prompt.
 */

/**
 * Every character a reader (or a model's tokenizer) may take for the end of a line, not only `\n`:
 * a value holding a lone `\r` or a U+2028 must be indented like one holding `\n`.
 */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;
// Items that contain these would blur together when joined on one line.
const LIST_SEPARATOR = /[,\n\r\v\f\u0085\u2028\u2029]/;

/** JSON.stringify leaves these as they are; escaped, a quoted string always stays on one line. */
const UNESCAPED_LINE_BREAK = /[\u0085\u2028\u2029]/g;

/** A string on one line between double quotes, every quote and line break in it escaped, Unicode kept. */
export const quote = (text: string): string =>
  JSON.stringify(text).replace(UNESCAPED_LINE_BREAK, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export const spansLines = (text: string): boolean => LINE_BREAK.test(text);

export function indented(text: string, indent: string): string[] {
  return text.split(LINE_BREAK).map((line) => (line === '' ? '' : indent + line));
}

/** `Label: text`, or the label alone with the text indented below when it spans lines. */
export function labelled(label: string, text: string): string[] {
  return spansLines(text) ? [`${label}:`, ...indented(text, '  ')] : [`${label}: ${text}`];
}

/** `Label: a, b`, or one bullet per item when an item holds a comma or a line break. */
export function labelledList(label: string, items: readonly string[]): string[] {
  if (!items.some((item) => LIST_SEPARATOR.test(item))) return [`${label}: ${items.join(', ')}`];
  return [`${label}:`, ...items.flatMap((item) => indented(item, '    ').map((line, index) => (index === 0 ? `  - ${line.trimStart()}` : line)))];
}
