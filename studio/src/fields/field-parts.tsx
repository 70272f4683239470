/** Label, hint and error around a form control, wired with aria-describedby. */
import type { ComponentChildren } from 'preact';

export function describedBy(id: string, hint?: string, error?: string): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

interface FieldShellProps {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  children: ComponentChildren;
}

export function FieldShell({ id, label, hint, error, children }: FieldShellProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {children}
      <FieldError id={id} error={error} />
    </div>
  );
}

export function FieldError({ id, error }: { id: string; error?: string }) {
  return error ? (
    <p id={`${id}-error`} class="field-error">
      {error}
    </p>
  ) : null;
}

/**
 * The label and hint of a control made of several (a table of rows): a paragraph the table names
 * with aria-labelledby, as one <label> cannot label many controls.
 */
export function GroupLabel({ id, label, hint }: { id: string; label: string; hint?: string }) {
  return (
    <>
      <p id={`${id}-label`} class="label">
        {label}
      </p>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
    </>
  );
}
