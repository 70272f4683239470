/**
 * Which attributes the form edits: the persona's own (the base) or one of its variants, each a
 * partial set of attributes merged over the base per request. Adding, renaming and removing a
 * variant changes the draft like any other edit; nothing is saved until Save.
 */
import { useState } from 'preact/hooks';
import type { Attributes } from '../api/types.js';
import { TextField } from '../fields/text-field.js';
import { MAX_VARIANTS, variantNameProblem, variantNames, withoutVariant, withRenamedVariant, withVariant } from '../personas/variant-names.js';
import { ConfirmDialog, Dialog } from './dialog.js';

interface VariantSwitcherProps {
  attributes: Attributes;
  /** Undefined: the base attributes. */
  selected: string | undefined;
  onSelect: (variant: string | undefined) => void;
  onChange: (attributes: Attributes) => void;
}

type Naming = { action: 'add' } | { action: 'rename'; from: string };

export function VariantSwitcher({ attributes, selected, onSelect, onChange }: VariantSwitcherProps) {
  const names = variantNames(attributes);
  const [naming, setNaming] = useState<Naming | undefined>(undefined);
  const [removing, setRemoving] = useState(false);
  const full = names.length >= MAX_VARIANTS;

  return (
    <fieldset class="variant-switcher">
      <legend>Variant</legend>
      <div class="variant-controls">
        <label for="variant-select">Edit the attributes of</label>
        <select id="variant-select" value={selected ?? ''} onChange={(event) => onSelect(event.currentTarget.value || undefined)}>
          <option value="">the persona (base)</option>
          {names.map((name) => (
            <option key={name} value={name}>
              variant {name}
            </option>
          ))}
        </select>
        <button type="button" class="secondary" disabled={full} title={full ? `A persona has at most ${MAX_VARIANTS} variants.` : undefined} onClick={() => setNaming({ action: 'add' })}>
          Add a variant
        </button>
        {selected !== undefined && (
          <>
            <button type="button" class="secondary" onClick={() => setNaming({ action: 'rename', from: selected })}>
              Rename<span class="visually-hidden"> variant {selected}</span>
            </button>
            <button type="button" class="secondary" onClick={() => setRemoving(true)}>
              Remove<span class="visually-hidden"> variant {selected}</span>
            </button>
          </>
        )}
      </div>
      <p class="hint">
        {selected === undefined
          ? 'A variant (de-DE, support-chat) changes some attributes for requests that name it; the rest come from the persona.'
          : `Requests naming “${selected}” use these attributes over the persona’s: a field left empty keeps the persona’s value; word lists and term bases add to the persona’s.`}
      </p>
      {naming && (
        <NameDialog
          naming={naming}
          others={names.filter((name) => naming.action === 'add' || name !== naming.from)}
          onCancel={() => setNaming(undefined)}
          onName={(name) => {
            setNaming(undefined);
            onChange(naming.action === 'add' ? withVariant(attributes, name, {}) : withRenamedVariant(attributes, naming.from, name));
            onSelect(name);
          }}
        />
      )}
      {removing && selected !== undefined && (
        <ConfirmDialog
          title={`Remove the variant “${selected}”?`}
          confirm="Remove variant"
          danger
          onConfirm={() => {
            setRemoving(false);
            onSelect(undefined);
            onChange(withoutVariant(attributes, selected));
          }}
          onCancel={() => setRemoving(false)}
        >
          <p>Its attributes go with it when you save. Requests naming it will then get a 400 error.</p>
        </ConfirmDialog>
      )}
    </fieldset>
  );
}

interface NameDialogProps {
  naming: Naming;
  others: readonly string[];
  onCancel: () => void;
  onName: (name: string) => void;
}

function NameDialog({ naming, others, onCancel, onName }: NameDialogProps) {
  const [name, setName] = useState(naming.action === 'rename' ? naming.from : '');
  const [error, setError] = useState<string | undefined>(undefined);
  const confirm = () => {
    const problem = variantNameProblem(name.trim(), others);
    if (problem) setError(problem);
    else onName(name.trim());
  };
  const verb = naming.action === 'add' ? 'Add variant' : 'Rename variant';
  return (
    <Dialog
      title={naming.action === 'add' ? 'Add a variant' : `Rename the variant “${naming.from}”`}
      onCancel={onCancel}
      actions={
        <>
          <button type="button" onClick={confirm}>
            {verb}
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </>
      }
    >
      {/* The dialog sits inside the persona's form: Enter here names the variant instead of saving the persona. */}
      <div
        onKeyDown={(event) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          confirm();
        }}
      >
        <TextField
          id="variant-name"
          label="Variant name"
          hint="Letters, digits, “_” and “-”, at most 40: a locale (de-DE) or a channel (support-chat)."
          value={name}
          error={error}
          onChange={(value) => {
            setName(value);
            setError(undefined);
          }}
        />
      </div>
    </Dialog>
  );
}
