/** A positive whole number (maxWords, maxSentences); empty removes the limit. */
import { useSyncedDraft } from '../hooks.js';
import { describedBy, FieldShell } from './field-parts.js';

const WHOLE = /^\s*\d+\s*$/;
const isValid = (text: string) => text.trim() === '' || (WHOLE.test(text) && Number(text) > 0 && Number.isSafeInteger(Number(text)));
const parse = (text: string) => (text.trim() === '' ? undefined : Number(text));

interface LimitFieldProps {
  id: string;
  label: string;
  hint?: string;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
}

export function LimitField({ id, label, hint, value, onChange }: LimitFieldProps) {
  // Text that is not a number yet stays as typed; the attribute keeps its last valid value meanwhile.
  const [draft, setDraft] = useSyncedDraft(
    value,
    (current) => (current === undefined ? '' : String(current)),
    (text, current) => !isValid(text) || parse(text) === current,
  );
  const error = isValid(draft) ? undefined : 'Enter a whole number greater than 0, or leave it empty.';
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
