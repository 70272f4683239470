/**
 * A persona's term base (`attributes.terms`) as CSV, RFC 4180: a header row naming the columns
 * `term,use,replaces,suggest,caseSensitive,forms,note` (in any order; `term` and `use` required),
 * fields quoted with `"` when they hold a comma, a quote or a line break (a quote doubled inside),
 * records ending in CRLF or LF, and `replaces` separated by `|`. Every mistake names its line
 * (of the file, a quoted line break counted) and column, so a spreadsheet export is fixed where
 * it is wrong.
 */

export const TERM_COLUMNS = ['term', 'use', 'replaces', 'suggest', 'caseSensitive', 'forms', 'note'] as const;
type Column = (typeof TERM_COLUMNS)[number];

const USES = ['preferred', 'forbidden', 'keep'];
const FORMS = ['exact', 'inflected'];

export interface TermRow {
  term: string;
  use: string;
  replaces?: string[];
  suggest?: string;
  caseSensitive?: boolean;
  forms?: string;
  note?: string;
}

/** Where a CSV is wrong: 1-based line and column (and the column's name when the header gave one). */
export class CsvError extends Error {
  override name = 'CsvError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly columnName: string | undefined,
    readonly problem: string,
  ) {
    super(`line ${line}, column ${column}${columnName ? ` (${columnName})` : ''}: ${problem}`);
  }
}

interface CsvRecord {
  line: number;
  fields: string[];
}

/** The records of a CSV text, each with the line it starts on. */
export function parseCsv(text: string): CsvRecord[] {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let line = 1;
  let at = 0;
  while (at < source.length) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (source[at] === '"') {
        const opened = line;
        at++;
        for (;;) {
          if (at >= source.length) throw new CsvError(opened, fields.length + 1, undefined, 'a quoted field is not closed');
          const char = source[at]!;
          if (char === '"') {
            if (source[at + 1] === '"') {
              field += '"';
              at += 2;
              continue;
            }
            at++;
            break;
          }
          if (char === '\n') line++;
          field += char;
          at++;
        }
        const next = source[at];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new CsvError(line, fields.length + 1, undefined, 'text after a closing quote (a quote inside a field is written twice: "")');
        }
      } else {
        while (at < source.length && source[at] !== ',' && source[at] !== '\n' && source[at] !== '\r') {
          if (source[at] === '"') throw new CsvError(line, fields.length + 1, undefined, 'a quote inside an unquoted field (quote the whole field and write the quote twice)');
          field += source[at];
          at++;
        }
      }
      fields.push(field);
      if (source[at] === ',') {
        at++;
        continue;
      }
      if (source[at] === '\r') at++;
      if (source[at] === '\n') at++;
      break;
    }
    line++;
    // A blank line is no record.
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
  }
  return records;
}

/** The term base a CSV describes, each entry with the line it came from. */
export function termsFromCsv(text: string): { entries: TermRow[]; lines: number[]; columns: string[] } {
  const [header, ...rows] = parseCsv(text);
  if (header === undefined) throw new CsvError(1, 1, undefined, `empty file: the first line must name the columns (${TERM_COLUMNS.join(',')})`);
  const columns = header.fields.map((name, index) => {
    const column = TERM_COLUMNS.find((known) => known === name.trim());
    if (column === undefined) throw new CsvError(header.line, index + 1, undefined, `unknown column "${name}"; the columns are ${TERM_COLUMNS.join(', ')}`);
    if (header.fields.slice(0, index).some((other) => other.trim() === column)) throw new CsvError(header.line, index + 1, column, 'this column is named twice');
    return column;
  });
  for (const required of ['term', 'use'] as const) {
    if (!columns.includes(required)) throw new CsvError(header.line, columns.length + 1, required, `the header must name the column "${required}"`);
  }
  const entries = rows.map((row) => entryOf(row, columns));
  return { entries, lines: rows.map((row) => row.line), columns };
}

function entryOf(row: CsvRecord, columns: Column[]): TermRow {
  if (row.fields.length !== columns.length) {
    const column = Math.min(row.fields.length, columns.length) + 1;
    throw new CsvError(row.line, column, columns[column - 1], `expected ${columns.length} fields as in the header, found ${row.fields.length}`);
  }
  const value = (column: Column) => {
    const index = columns.indexOf(column);
    return index === -1 ? '' : row.fields[index]!.trim();
  };
  const fail = (column: Column, problem: string): never => {
    throw new CsvError(row.line, columns.indexOf(column) + 1, column, problem);
  };
  const term = value('term');
  if (term === '') fail('term', 'the term is empty');
  const use = value('use');
  if (!USES.includes(use)) fail('use', `use must be one of ${USES.join(', ')}, found "${use}"`);
  const entry: TermRow = { term, use };
  const replaces = value('replaces').split('|').map((word) => word.trim()).filter((word) => word !== '');
  if (replaces.length > 0) {
    if (use !== 'preferred') fail('replaces', `only a preferred term replaces words; this one is ${use}`);
    entry.replaces = replaces;
  }
  const suggest = value('suggest');
  if (suggest !== '') {
    if (use !== 'forbidden') fail('suggest', `only a forbidden term has a suggestion; this one is ${use}`);
    entry.suggest = suggest;
  }
  const caseSensitive = value('caseSensitive').toLowerCase();
  if (caseSensitive !== '') {
    if (caseSensitive !== 'true' && caseSensitive !== 'false') fail('caseSensitive', `caseSensitive must be true, false or empty, found "${value('caseSensitive')}"`);
    entry.caseSensitive = caseSensitive === 'true';
  }
  const forms = value('forms');
  if (forms !== '') {
    if (!FORMS.includes(forms)) fail('forms', `forms must be exact, inflected or empty, found "${forms}"`);
    entry.forms = forms;
  }
  const note = value('note');
  if (note !== '') entry.note = note;
  return entry;
}

const quoted = (field: string) => (/[",\r\n]/.test(field) || field !== field.trim() ? `"${field.replace(/"/g, '""')}"` : field);

/** The term base as CSV (CRLF, as RFC 4180 writes it); entries of another shape are refused by their index. */
export function termsToCsv(terms: readonly unknown[]): string {
  const rows = terms.map((raw, index) => {
    const entry = raw as Partial<TermRow> | null;
    if (entry === null || typeof entry !== 'object' || typeof entry.term !== 'string' || typeof entry.use !== 'string') {
      throw new Error(`terms[${index}] is not a term entry { term, use, … }`);
    }
    const replaces = entry.replaces ?? [];
    const piped = replaces.find((word) => word.includes('|'));
    if (piped !== undefined) throw new Error(`terms[${index}] replaces "${piped}", which holds "|", the CSV's separator of replaced words`);
    const cells: { [C in Column]: string } = {
      term: entry.term,
      use: entry.use,
      replaces: replaces.join('|'),
      suggest: entry.suggest ?? '',
      caseSensitive: entry.caseSensitive === undefined ? '' : String(entry.caseSensitive),
      forms: entry.forms ?? '',
      note: entry.note ?? '',
    };
    return TERM_COLUMNS.map((column) => quoted(cells[column])).join(',');
  });
  return [TERM_COLUMNS.join(','), ...rows].map((row) => `${row}\r\n`).join('');
}
