/**
 * Before/after examples, stored as `[{ "before", "after" }]`. Any other key an example carries
 * (a note, a label) is kept as it is.
 */
import type { Attributes } from '../api/types.js';

type Example = Attributes & { before?: string; after?: string };

interface ExamplesFieldProps {
  id: string;
  label: string;
  value: Example[] | undefined;
  onChange: (value: Example[] | undefined) => void;
}

export function ExamplesField({ id, label, value = [], onChange }: ExamplesFieldProps) {
  const update = (next: Example[]) => onChange(next.length > 0 ? next : undefined);
  const edit = (index: number, change: Partial<Example>) => update(value.map((example, at) => (at === index ? { ...example, ...change } : example)));

  return (
    <div class="field">
      <p class="label">{label}</p>
      {value.map((example, index) => (
        <fieldset class="example" key={index}>
          <legend>Example {index + 1}</legend>
          <label for={`${id}-${index}-before`}>Before</label>
          <textarea
            id={`${id}-${index}-before`}
            rows={2}
            value={example.before ?? ''}
            onInput={(event) => edit(index, { before: event.currentTarget.value })}
          />
          <label for={`${id}-${index}-after`}>After</label>
          <textarea
            id={`${id}-${index}-after`}
            rows={2}
            value={example.after ?? ''}
            onInput={(event) => edit(index, { after: event.currentTarget.value })}
          />
          <button type="button" class="secondary" onClick={() => update(value.filter((_, at) => at !== index))}>
            Remove example {index + 1}
          </button>
        </fieldset>
      ))}
      <button type="button" class="secondary" onClick={() => update([...value, { before: '', after: '' }])}>
        Add an example
      </button>
    </div>
  );
}
