/**
 * The attributes as JSON: the whole object, well-known keys and all others alike. Text that is
 * not (yet) a JSON object stays as typed and is reported; the last valid object stays in effect.
 */
import { useSyncedDraft } from '../hooks.js';
import type { Attributes } from '../api/types.js';
import { isPlainObject, sameJson } from '../personas/attributes.js';
import { FieldError } from '../fields/field-parts.js';

export function jsonProblem(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `Not valid JSON yet: ${(error as Error).message}`;
  }
  return isPlainObject(parsed) ? undefined : 'Attributes must be a JSON object: { "key": value, … }';
}

interface JsonAttributesProps {
  attributes: Attributes;
  /** From the service, e.g. "attributes must be at most 64 KiB…". */
  error?: string;
  onChange: (attributes: Attributes) => void;
  onProblem: (problem: string | undefined) => void;
}

export function JsonAttributes({ attributes, error, onChange, onProblem }: JsonAttributesProps) {
  const [draft, setDraft] = useSyncedDraft(
    attributes,
    (value) => JSON.stringify(value, null, 2),
    (text, value) => jsonProblem(text) !== undefined || sameJson(JSON.parse(text), value),
  );
  const problem = jsonProblem(draft);
  const id = 'attributes-json';
  return (
    <div class="field">
      <label for={id}>Attributes (JSON)</label>
      <p id={`${id}-hint`} class="hint">
        The whole attributes object. Keys the form does not show are kept and sent to the model as they are.
      </p>
      <textarea
        id={id}
        class="code"
        rows={16}
        spellcheck={false}
        value={draft}
        aria-describedby={[`${id}-hint`, problem || error ? `${id}-error` : ''].join(' ').trim()}
        aria-invalid={problem || error ? 'true' : undefined}
        onInput={(event) => {
          const text = event.currentTarget.value;
          setDraft(text);
          const found = jsonProblem(text);
          onProblem(found);
          if (!found) onChange(JSON.parse(text) as Attributes);
        }}
      />
      <FieldError id={id} error={problem ?? error} />
    </div>
  );
}
