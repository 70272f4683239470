/**
 * The attributes as a form: one control per well-known key, grouped. Every change goes through
 * withAttribute, so keys the form does not show (and their order) are never touched.
 */
import type { Attributes } from '../api/types.js';
import { EmojiField } from '../fields/emoji-field.js';
import { ExamplesField } from '../fields/examples-field.js';
import { LimitField } from '../fields/limit-field.js';
import { ListField } from '../fields/list-field.js';
import { TermsField } from '../fields/terms-field.js';
import { TextField } from '../fields/text-field.js';
import { RuleSettingsField } from '../fields/rule-settings-field.js';
import { VocabularyField } from '../fields/vocabulary-field.js';
import { type AttributeField, expectedValue, FIELD_GROUPS, type FieldKind, formCanEdit, isAcceptedValue, shapeMessage } from '../personas/attribute-fields.js';
import { withAttribute } from '../personas/attributes.js';

/** Controls that need the full width; the others sit two or three to a row on wide screens. */
const WIDE_KINDS: ReadonlySet<FieldKind> = new Set(['longText', 'vocabulary', 'examples', 'terms']);

/**
 * Keys with a control here: the catalogue's fields, `enforce`, which the catalogue leaves to the
 * JSON view but the form draws as one choice per rule, and `variants`, which the variant switcher
 * edits (views/variant-switcher.tsx). The author's own keys are edited as JSON.
 */
const FORM_KEYS: ReadonlySet<string> = new Set(['enforce', 'variants', ...FIELD_GROUPS.flatMap((group) => group.fields.map((field) => field.key))]);

interface AttributeFormProps {
  attributes: Attributes;
  onChange: (attributes: Attributes) => void;
  onShowJson: () => void;
  /** The attributes are a variant's, which holds only the catalogue's keys. */
  variant?: string;
}

export function AttributeForm({ attributes, onChange, onShowJson, variant }: AttributeFormProps) {
  const others = Object.keys(attributes).filter((key) => !FORM_KEYS.has(key));
  return (
    <div class="attribute-form">
      {FIELD_GROUPS.map((group) => (
        <fieldset key={group.legend} class="group">
          <legend>{group.legend}</legend>
          {group.fields.map((field) => (
            <div key={field.key} class={WIDE_KINDS.has(field.kind) ? 'cell wide' : 'cell'}>
              <AttributeControl
                field={field}
                value={attributes[field.key]}
                onChange={(value) => onChange(withAttribute(attributes, field.key, value))}
                onShowJson={onShowJson}
              />
            </div>
          ))}
        </fieldset>
      ))}
      <fieldset class="group">
        <legend>Rules and how much their findings weigh</legend>
        <p class="hint wide">
          The service checks each rule after writing. A required finding fails a check; a recommended one only lowers the persona score. A rule finds
          something only when its attribute above is set; numbers, links, code and placeholders are checked for every persona.
        </p>
        {isAcceptedValue('enforce', attributes.enforce) ? (
          <RuleSettingsField value={attributes.enforce} onChange={(value) => onChange(withAttribute(attributes, 'enforce', value))} />
        ) : (
          <p class="hint wide">
            “enforce” holds a value the service ignores and will not save: {shapeMessage('enforce')}.{' '}
            <button type="button" class="link" onClick={onShowJson}>
              Edit it as JSON
            </button>
          </p>
        )}
      </fieldset>
      <section class="group" aria-labelledby="other-attributes">
        <h4 id="other-attributes">Other attributes</h4>
        <p class="hint">
          {others.length > 0
            ? `Kept as they are: ${others.join(', ')}.`
            : variant === undefined
              ? 'None. Add your own keys in the JSON view; the service passes every attribute to the model.'
              : 'None: a variant holds only the attributes above.'}{' '}
          <button type="button" class="link" onClick={onShowJson}>
            Edit as JSON
          </button>
        </p>
      </section>
    </div>
  );
}

interface AttributeControlProps {
  field: AttributeField;
  value: unknown;
  onChange: (value: unknown) => void;
  onShowJson: () => void;
}

function AttributeControl({ field, value: stored, onChange, onShowJson }: AttributeControlProps) {
  const id = `attr-${field.key}`;
  const { label, hint } = field;
  if (!formCanEdit(field, stored)) {
    return (
      <div class="field">
        <p class="label">{label}</p>
        <p class="hint">
          {isAcceptedValue(field.key, stored)
            ? `“${field.key}” holds a value this form cannot show without changing it; it is kept as it is.`
            : `“${field.key}” holds a value the service ignores and will not save: ${shapeMessage(field.key)}.`}{' '}
          <button type="button" class="link" onClick={onShowJson}>
            Edit it as JSON
          </button>
        </p>
      </div>
    );
  }
  // null means "not set", as an absent key does.
  const value = stored === null ? undefined : stored;
  switch (field.kind) {
    case 'text':
    case 'longText':
      return (
        <TextField
          id={id}
          label={label}
          hint={hint}
          value={(value as string | undefined) ?? ''}
          multiline={field.kind === 'longText'}
          onChange={(text) => onChange(text === '' ? undefined : text)}
        />
      );
    case 'list':
      return <ListField id={id} label={label} hint={hint} value={value} onChange={onChange} />;
    case 'limit':
      return (
        <LimitField
          id={id}
          label={label}
          hint={hint}
          value={value as number | undefined}
          accepts={(number) => isAcceptedValue(field.key, number)}
          expected={expectedValue(field.key)}
          onChange={onChange}
        />
      );
    case 'emoji':
      return <EmojiField id={id} label={label} hint={hint} value={value as boolean | string | undefined} onChange={onChange} />;
    case 'vocabulary':
      return <VocabularyField id={id} label={label} hint={hint} value={value as Record<string, string> | undefined} onChange={onChange} />;
    case 'examples':
      return <ExamplesField id={id} label={label} value={value as Attributes[] | undefined} onChange={onChange} />;
    case 'terms':
      return <TermsField id={id} label={label} hint={hint} value={value as Attributes[] | undefined} onChange={onChange} />;
  }
}
