/** A single- or multi-line text control whose value is exactly the string typed. */
import type { Ref } from 'preact';
import { describedBy, FieldShell } from './field-parts.js';

export interface TextFieldProps {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  value: string;
  onChange: (value: string) => void;
  multiline?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}

export function TextField({ id, label, hint, error, value, onChange, multiline, inputRef }: TextFieldProps) {
  const common = {
    id,
    value,
    'aria-describedby': describedBy(id, hint, error),
    'aria-invalid': error ? ('true' as const) : undefined,
  };
  return (
    <FieldShell id={id} label={label} hint={hint} error={error}>
      {multiline ? (
        <textarea {...common} rows={3} onInput={(event) => onChange(event.currentTarget.value)} />
      ) : (
        <input {...common} ref={inputRef} type="text" autocomplete="off" onInput={(event) => onChange(event.currentTarget.value)} />
      )}
    </FieldShell>
  );
}
