/**
 * The form's fields, read from the service's attribute catalogue (src/personas/catalogue/): which
 * keys get a control, of which kind, with which label and hint, and which values are valid. The
 * studio only adds how the groups are titled. Any other key is edited in the JSON view.
 */
import {
  ATTRIBUTE_CATALOGUE,
  ATTRIBUTE_KEYS,
  type AttributeKey,
  type FieldGroup,
  type FieldKind,
  INVALID,
  isWellKnownAttribute,
  shapeMessage,
} from '../../../src/personas/catalogue/index.js';

export { type AttributeKey, type FieldKind, isWellKnownAttribute, shapeMessage };

export interface AttributeField {
  key: AttributeKey;
  label: string;
  kind: FieldKind;
  hint?: string;
}

export interface FieldGroupView {
  legend: string;
  fields: AttributeField[];
}

const LEGENDS: Record<FieldGroup, string> = {
  voice: 'Voice',
  languageAndLength: 'Language and length',
  words: 'Words',
  endings: 'Endings, examples and instructions',
};

export const FIELD_GROUPS: FieldGroupView[] = (Object.keys(LEGENDS) as FieldGroup[]).map((group) => ({
  legend: LEGENDS[group],
  fields: ATTRIBUTE_KEYS.flatMap((key) => {
    const field = ATTRIBUTE_CATALOGUE[key].field;
    return field?.group === group ? [{ key, label: field.label, kind: field.kind, ...(field.hint ? { hint: field.hint } : {}) }] : [];
  }),
}));

/** Whether the service accepts this value for the key (null and absent: not set). */
export function isAcceptedValue(key: AttributeKey, value: unknown): boolean {
  return value === undefined || value === null || ATTRIBUTE_CATALOGUE[key].shape.parse(value) !== INVALID;
}

/** The values the service accepts for the key, in words ("a whole number from 0 to 100"). */
export const expectedValue = (key: AttributeKey): string => ATTRIBUTE_CATALOGUE[key].shape.expected;

/**
 * Whether the form control can show this value without changing it: a value the service accepts,
 * in a form the control draws (a text control cannot show the list form of `tone`, which stays
 * valid and is left to the JSON view).
 */
export function formCanEdit(field: AttributeField, value: unknown): boolean {
  if (!isAcceptedValue(field.key, value)) return false;
  const textual = field.kind === 'text' || field.kind === 'longText';
  return !textual || value === undefined || value === null || typeof value === 'string';
}
