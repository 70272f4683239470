/** How the catalogue's entries phrase themselves in the system message: labelled lines of plain text. */

const LINE_BREAK = /\r?\n/;
// Items that contain these would blur together when joined on one line.
const LIST_SEPARATOR = /[,\n]/;

export const quote = (text: string): string => JSON.stringify(text);

export function indented(text: string, indent: string): string[] {
  return text.split(LINE_BREAK).map((line) => (line === '' ? '' : indent + line));
}

/** `Label: text`, or the label alone with the text indented below when it spans lines. */
export function labelled(label: string, text: string): string[] {
  return text.includes('\n') ? [`${label}:`, ...indented(text, '  ')] : [`${label}: ${text}`];
}

/** `Label: a, b`, or one bullet per item when an item holds a comma or a line break. */
export function labelledList(label: string, items: readonly string[]): string[] {
  if (!items.some((item) => LIST_SEPARATOR.test(item))) return [`${label}: ${items.join(', ')}`];
  return [`${label}:`, ...items.flatMap((item) => indented(item, '    ').map((line, index) => (index === 0 ? `  - ${line.trimStart()}` : line)))];
}
