/**
 * A whole number (maxWords, maxSentences, minScore); empty removes it. Which numbers are valid is
 * the attribute's own shape in the service's catalogue (at least 1 for a limit, 0–100 for a score).
 */
import { useSyncedDraft } from '../hooks.js';
import { describedBy, FieldShell } from './field-parts.js';

const WHOLE = /^\s*\d+\s*$/;
const parse = (text: string) => (text.trim() === '' ? undefined : Number(text));

interface LimitFieldProps {
  id: string;
  label: string;
  hint?: string;
  value: number | undefined;
  /** Whether the service accepts this number for the attribute. */
  accepts: (value: number) => boolean;
  /** The accepted numbers in words, completing "Enter …", e.g. "a whole number from 0 to 100". */
  expected: string;
  onChange: (value: number | undefined) => void;
}

export function LimitField({ id, label, hint, value, accepts, expected, onChange }: LimitFieldProps) {
  const isValid = (text: string) => text.trim() === '' || (WHOLE.test(text) && accepts(Number(text)));
  // Text that is not a number yet stays as typed; the attribute keeps its last valid value meanwhile.
  const [draft, setDraft] = useSyncedDraft(
    value,
    (current) => (current === undefined ? '' : String(current)),
    (text, current) => !isValid(text) || parse(text) === current,
  );
  const error = isValid(draft) ? undefined : `Enter ${expected}, or leave it empty.`;
  return (
    <FieldShell id={id} label={label} hint={hint} error={error}>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autocomplete="off"
        value={draft}
        aria-describedby={describedBy(id, hint, error)}
        aria-invalid={error ? 'true' : undefined}
        onInput={(event) => {
          const text = event.currentTarget.value;
          setDraft(text);
          if (isValid(text)) onChange(parse(text));
        }}
      />
    </FieldShell>
  );
}
