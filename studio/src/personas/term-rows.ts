/**
 * The term base (`terms`) as the table edits it: one row of plain strings per entry, so a row
 * being typed (an empty term, `login |` half written) stays as typed. The stored list is rebuilt
 * from the rows with a term, in the key order the catalogue documents; an unset option is left out
 * rather than written as its default, so a saved entry reads as the author wrote it.
 */
import { MAX_TERM_ENTRIES, TERM_FORMS, TERM_USES, type TermForms, type TermUse } from '../../../src/personas/catalogue/index.js';

export { MAX_TERM_ENTRIES, TERM_FORMS, TERM_USES, type TermForms, type TermUse };

/** `caseSensitive` and `forms` may be unset (the catalogue's defaults apply): ''. */
export interface TermRow {
  term: string;
  use: TermUse;
  /** `replaces` as typed, several separated by `|`. */
  replaces: string;
  suggest: string;
  caseSensitive: '' | 'yes' | 'no';
  forms: '' | TermForms;
  note: string;
}

export type StoredTerm = Record<string, unknown>;

/** What a new row starts as: a preferred term is the most common kind in a term base. */
export const NEW_ROW: TermRow = { term: '', use: 'preferred', replaces: '', suggest: '', caseSensitive: '', forms: '', note: '' };

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function rowOf(entry: StoredTerm): TermRow {
  const { term, use, replaces, suggest, caseSensitive, forms, note } = entry;
  return {
    term: text(term),
    use: (TERM_USES as readonly unknown[]).includes(use) ? (use as TermUse) : 'preferred',
    replaces: Array.isArray(replaces) ? replaces.filter((item) => typeof item === 'string').join(' | ') : '',
    suggest: text(suggest),
    caseSensitive: caseSensitive === true ? 'yes' : caseSensitive === false ? 'no' : '',
    forms: (TERM_FORMS as readonly unknown[]).includes(forms) ? (forms as TermForms) : '',
    note: text(note),
  };
}

export const splitReplaces = (typed: string): string[] =>
  typed
    .split('|')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The stored entry of a row, or undefined for a row without a term (not saved). */
export function entryOf(row: TermRow): StoredTerm | undefined {
  const term = row.term.trim();
  if (term === '') return undefined;
  const replaces = splitReplaces(row.replaces);
  const suggest = row.suggest.trim();
  return {
    term,
    use: row.use,
    ...(replaces.length > 0 ? { replaces } : {}),
    ...(suggest !== '' ? { suggest } : {}),
    ...(row.caseSensitive === '' ? {} : { caseSensitive: row.caseSensitive === 'yes' }),
    ...(row.forms === '' ? {} : { forms: row.forms }),
    ...(row.note.trim() !== '' ? { note: row.note } : {}),
  };
}

/** The attribute's value: the rows with a term; an empty table removes the attribute. */
export function termsOf(rows: readonly TermRow[]): StoredTerm[] | undefined {
  const entries = rows.flatMap((row): StoredTerm[] => {
    const entry = entryOf(row);
    return entry ? [entry] : [];
  });
  return entries.length > 0 ? entries : undefined;
}

/** The positions of the rows matching a search, in order: any column's text, any case. */
export function matchingRows(rows: readonly TermRow[], search: string): number[] {
  const needle = search.trim().toLocaleLowerCase();
  const positions: number[] = [];
  rows.forEach((row, index) => {
    if (needle === '' || [row.term, row.replaces, row.suggest, row.note].some((field) => field.toLocaleLowerCase().includes(needle))) positions.push(index);
  });
  return positions;
}
