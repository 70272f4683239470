/**
 * A plain-text table for a terminal or a CI log: each column padded to its widest cell, numeric
 * columns right-aligned so scores line up, two spaces between columns, no trailing spaces.
 */
export interface Column {
  title: string;
  align?: 'left' | 'right';
}

export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, i) => Math.max(column.title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    columns
      .map((column, i) => (column.align === 'right' ? (cells[i] ?? '').padStart(widths[i]!) : (cells[i] ?? '').padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.title)), ...rows.map(line)].map((text) => `${text}\n`).join('');
}
