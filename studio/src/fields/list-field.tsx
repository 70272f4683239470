/** A list of strings typed one per line; an empty list removes the attribute. */
import { useSyncedDraft } from '../hooks.js';
import { sameJson } from '../personas/attributes.js';
import { describedBy, FieldShell } from './field-parts.js';

export const parseLines = (text: string): string[] | undefined => {
  const items = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return items.length > 0 ? items : undefined;
};

const formatLines = (value: unknown) => (Array.isArray(value) ? value.join('\n') : typeof value === 'string' ? value : '');

interface ListFieldProps {
  id: string;
  label: string;
  hint?: string;
  /** A list of strings, or a single string (which the service treats as a list of one). */
  value: unknown;
  onChange: (value: string[] | undefined) => void;
}

export function ListField({ id, label, hint, value, onChange }: ListFieldProps) {
  // A lone string stays a string until the person edits it.
  const [draft, setDraft] = useSyncedDraft(value, formatLines, (text, current) => sameJson(parseLines(text), current) || text === current);
  return (
    <FieldShell id={id} label={label} hint={hint}>
      <textarea
        id={id}
        rows={3}
        value={draft}
        aria-describedby={describedBy(id, hint)}
        onInput={(event) => {
          setDraft(event.currentTarget.value);
          onChange(parseLines(event.currentTarget.value));
        }}
      />
    </FieldShell>
  );
}
