/**
 * The emoji policy: `false` (never; the rules engine also strips them), `true` (where they fit)
 * or a phrase such as "sparingly". A phrase the menu does not list is kept as its own choice.
 */
import { describedBy, FieldShell } from './field-parts.js';

const CHOICES: { label: string; value: boolean | string | undefined }[] = [
  { label: 'Not set', value: undefined },
  { label: 'Never (any emoji is removed)', value: false },
  { label: 'Sparingly', value: 'sparingly' },
  { label: 'Where they fit', value: true },
];

const optionKey = (value: unknown) => (value === undefined ? 'unset' : JSON.stringify(value));

interface EmojiFieldProps {
  id: string;
  label: string;
  hint?: string;
  value: boolean | string | undefined;
  onChange: (value: boolean | string | undefined) => void;
}

export function EmojiField({ id, label, hint, value, onChange }: EmojiFieldProps) {
  const listed = CHOICES.some((choice) => choice.value === value);
  const choices = listed ? CHOICES : [...CHOICES, { label: `“${String(value)}”`, value }];
  return (
    <FieldShell id={id} label={label} hint={hint}>
      <select
        id={id}
        value={optionKey(value)}
        aria-describedby={describedBy(id, hint)}
        onChange={(event) => onChange(choices.find((choice) => optionKey(choice.value) === event.currentTarget.value)?.value)}
      >
        {choices.map((choice) => (
          <option key={optionKey(choice.value)} value={optionKey(choice.value)}>
            {choice.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}
