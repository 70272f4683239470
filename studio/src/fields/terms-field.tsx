/**
 * The term base as a table with search: one row per entry, its seven columns each a native
 * control, so the table works from the keyboard as a form does. A term base holds up to 2,000
 * entries; the table draws one page of the matching rows at a time, so typing in a cell or the
 * search costs the same whatever the number of terms.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import { MAX_TERM_ENTRIES, NEW_ROW, type StoredTerm, TERM_FORMS, TERM_USES, type TermRow, matchingRows, rowOf, termsOf } from '../personas/term-rows.js';
import { GroupLabel } from './field-parts.js';

/** Rows drawn at a time. */
export const TERM_PAGE_SIZE = 50;

const USE_LABELS: Record<TermRow['use'], string> = { preferred: 'Preferred', forbidden: 'Forbidden', keep: 'Keep verbatim' };

const toRows = (value: StoredTerm[] | undefined): TermRow[] => (value ?? []).map(rowOf);

interface TermsFieldProps {
  id: string;
  label: string;
  hint?: string;
  value: StoredTerm[] | undefined;
  onChange: (value: StoredTerm[] | undefined) => void;
}

export function TermsField({ id, label, hint, value, onChange }: TermsFieldProps) {
  // The rows as typed, while the value is the one they produced; a value from elsewhere (the JSON
  // view, a reload, another variant) replaces them.
  const [local, setLocal] = useState<{ rows: TermRow[]; produced: StoredTerm[] | undefined }>(() => ({ rows: toRows(value), produced: value }));
  const fromValue = useMemo(() => toRows(value), [value]);
  const rows = local.produced === value ? local.rows : fromValue;
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const table = useRef<HTMLTableElement>(null);

  const update = (next: TermRow[]) => {
    const produced = termsOf(next);
    setLocal({ rows: next, produced });
    onChange(produced);
  };
  const edit = (index: number, change: Partial<TermRow>) => update(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));

  const ours = local.produced === value;
  // Searched again when the search, the number of rows or the value from elsewhere changes, not on
  // an edit in a cell: a row being edited never vanishes because it stopped matching.
  const matching = useMemo(() => matchingRows(rows, search), [search, rows.length, ours ? undefined : value]);
  const pages = Math.max(1, Math.ceil(matching.length / TERM_PAGE_SIZE));
  const shownPage = Math.min(page, pages - 1);
  const shown = matching.slice(shownPage * TERM_PAGE_SIZE, (shownPage + 1) * TERM_PAGE_SIZE);
  const first = shownPage * TERM_PAGE_SIZE + 1;

  const full = rows.length >= MAX_TERM_ENTRIES;
  const add = () => {
    const next = [...rows, NEW_ROW];
    setSearch('');
    setPage(Math.floor((next.length - 1) / TERM_PAGE_SIZE));
    update(next);
    // The new row's term, once drawn: the person adding a term types it next.
    requestAnimationFrame(() => table.current?.querySelector<HTMLInputElement>(`#${id}-term-${next.length - 1}`)?.focus());
  };

  const summary =
    rows.length === 0
      ? 'No terms yet.'
      : matching.length === 0
        ? `No term matches “${search.trim()}”.`
        : `Showing ${first.toLocaleString('en')}–${(first + shown.length - 1).toLocaleString('en')} of ${matching.length.toLocaleString('en')} ${
            search.trim() === '' ? (matching.length === 1 ? 'term' : 'terms') : `matching “${search.trim()}” (${rows.length.toLocaleString('en')} in all)`
          }.`;

  return (
    <div class="field terms-field">
      <GroupLabel id={id} label={label} hint={hint} />
      <div class="terms-toolbar">
        <label for={`${id}-search`}>Search terms</label>
        <input
          id={`${id}-search`}
          type="search"
          autocomplete="off"
          value={search}
          onInput={(event) => {
            setSearch(event.currentTarget.value);
            setPage(0);
          }}
        />
        <button type="button" class="secondary" disabled={full} aria-describedby={full ? `${id}-full` : undefined} onClick={add}>
          Add to the term base
        </button>
        {full && (
          <span id={`${id}-full`} class="hint">
            A term base holds at most {MAX_TERM_ENTRIES.toLocaleString('en')} terms.
          </span>
        )}
      </div>
      <p id={`${id}-summary`} class="hint" role="status">
        {summary}
      </p>
      {shown.length > 0 && (
        // A region that scrolls sideways on a narrow screen, focusable so the keyboard can scroll it.
        <div class="table-scroll" role="region" aria-labelledby={`${id}-label`} tabIndex={0}>
          <table class="pairs terms" ref={table} aria-labelledby={`${id}-label`} aria-describedby={`${id}-summary`}>
            <thead>
              <tr>
                <th scope="col">Term</th>
                <th scope="col">Use</th>
                <th scope="col">Replaces</th>
                <th scope="col">Suggest</th>
                <th scope="col">Case-sensitive</th>
                <th scope="col">Forms</th>
                <th scope="col">Note</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((index) => (
                <TermRowCells key={index} id={id} index={index} row={rows[index]!} onEdit={edit} onRemove={() => update(rows.filter((_, at) => at !== index))} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav class="terms-pages" aria-label={`${label} pages`}>
          <button type="button" class="secondary" disabled={shownPage === 0} onClick={() => setPage(shownPage - 1)}>
            Previous page
          </button>
          <span>
            Page {shownPage + 1} of {pages}
          </span>
          <button type="button" class="secondary" disabled={shownPage >= pages - 1} onClick={() => setPage(shownPage + 1)}>
            Next page
          </button>
        </nav>
      )}
    </div>
  );
}

interface TermRowCellsProps {
  id: string;
  index: number;
  row: TermRow;
  onEdit: (index: number, change: Partial<TermRow>) => void;
  onRemove: () => void;
}

function TermRowCells({ id, index, row, onEdit, onRemove }: TermRowCellsProps) {
  const name = row.term.trim() === '' ? `row ${index + 1}` : `“${row.term.trim()}”`;
  const input = (field: 'term' | 'replaces' | 'suggest' | 'note', label: string) => (
    <input
      id={`${id}-${field}-${index}`}
      type="text"
      autocomplete="off"
      aria-label={`${label}, row ${index + 1}`}
      value={row[field]}
      onInput={(event) => onEdit(index, { [field]: event.currentTarget.value })}
    />
  );
  return (
    <tr>
      <td>{input('term', 'Term')}</td>
      <td>
        <select aria-label={`Use, row ${index + 1}`} value={row.use} onChange={(event) => onEdit(index, { use: event.currentTarget.value as TermRow['use'] })}>
          {TERM_USES.map((use) => (
            <option key={use} value={use}>
              {USE_LABELS[use]}
            </option>
          ))}
        </select>
      </td>
      <td>{input('replaces', 'Replaces')}</td>
      <td>{input('suggest', 'Suggest')}</td>
      <td>
        <select
          aria-label={`Case-sensitive, row ${index + 1}`}
          value={row.caseSensitive}
          onChange={(event) => onEdit(index, { caseSensitive: event.currentTarget.value as TermRow['caseSensitive'] })}
        >
          <option value="">{row.use === 'keep' ? 'Default (yes)' : 'Default (no)'}</option>
          <option value="yes">Yes</option>
          <option value="no">No</option>
        </select>
      </td>
      <td>
        <select aria-label={`Forms, row ${index + 1}`} value={row.forms} onChange={(event) => onEdit(index, { forms: event.currentTarget.value as TermRow['forms'] })}>
          <option value="">Default</option>
          {TERM_FORMS.map((forms) => (
            <option key={forms} value={forms}>
              {forms === 'exact' ? 'Exact' : 'Inflected'}
            </option>
          ))}
        </select>
      </td>
      <td>{input('note', 'Note')}</td>
      <td>
        <button type="button" class="secondary" onClick={onRemove}>
          Remove<span class="visually-hidden"> term {name}</span>
        </button>
      </td>
    </tr>
  );
}
