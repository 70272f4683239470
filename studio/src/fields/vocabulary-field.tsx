/**
 * Preferred vocabulary as a table of "instead of → use" rows, stored as the object
 * `{ "utilize": "use" }`. Rows are kept locally so a row being typed (or a duplicate) does not
 * jump around; the object is rebuilt from the rows with a non-empty first column.
 */
import { useState } from 'preact/hooks';
import { sameJson } from '../personas/attributes.js';
import { GroupLabel } from './field-parts.js';

type Row = { from: string; to: string };

function toObject(rows: Row[]): Record<string, string> | undefined {
  const entries = rows.filter((row) => row.from.trim() !== '').map((row) => [row.from.trim(), row.to] as const);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

const toRows = (value: Record<string, string> | undefined): Row[] => Object.entries(value ?? {}).map(([from, to]) => ({ from, to }));

interface VocabularyFieldProps {
  id: string;
  label: string;
  hint?: string;
  value: Record<string, string> | undefined;
  onChange: (value: Record<string, string> | undefined) => void;
}

export function VocabularyField({ id, label, hint, value, onChange }: VocabularyFieldProps) {
  const [localRows, setLocalRows] = useState<Row[]>(() => toRows(value));
  // Rows follow the value when it changed elsewhere (JSON view, reload); otherwise they are ours.
  const rows = sameJson(toObject(localRows), value) ? localRows : toRows(value);
  const update = (next: Row[]) => {
    setLocalRows(next);
    onChange(toObject(next));
  };
  const edit = (index: number, change: Partial<Row>) => update(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));

  return (
    <div class="field">
      <GroupLabel id={id} label={label} hint={hint} />
      {rows.length > 0 && (
        <table class="pairs" aria-labelledby={`${id}-label`} aria-describedby={hint ? `${id}-hint` : undefined}>
          <thead>
            <tr>
              <th scope="col">Instead of</th>
              <th scope="col">Use</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                <td>
                  <input
                    type="text"
                    autocomplete="off"
                    aria-label={`Instead of, row ${index + 1}`}
                    value={row.from}
                    onInput={(event) => edit(index, { from: event.currentTarget.value })}
                  />
                </td>
                <td>
                  <input
                    type="text"
                    autocomplete="off"
                    aria-label={`Use, row ${index + 1}`}
                    value={row.to}
                    onInput={(event) => edit(index, { to: event.currentTarget.value })}
                  />
                </td>
                <td>
                  <button type="button" class="secondary" onClick={() => update(rows.filter((_, at) => at !== index))}>
                    Remove<span class="visually-hidden"> row {index + 1}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" class="secondary" onClick={() => update([...rows, { from: '', to: '' }])}>
        Add a term
      </button>
    </div>
  );
}
