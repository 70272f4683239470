/**
 * The well-known attribute keys (DESIGN.md §2, plus the rule keys `casing`, `maxWords`,
 * `maxSentences`) and the form control each gets. Any other key is edited in the JSON view.
 */
import { isPlainObject } from './attributes.js';

export type FieldKind = 'text' | 'longText' | 'list' | 'limit' | 'emoji' | 'vocabulary' | 'examples';

export interface AttributeField {
  key: string;
  label: string;
  kind: FieldKind;
  hint?: string;
}

export interface FieldGroup {
  legend: string;
  fields: AttributeField[];
}

export const FIELD_GROUPS: FieldGroup[] = [
  {
    legend: 'Voice',
    fields: [
      { key: 'description', label: 'Description', kind: 'longText', hint: 'Who speaks, in a sentence or two.' },
      { key: 'tone', label: 'Tone', kind: 'text', hint: 'For example: warm, direct' },
      { key: 'formality', label: 'Formality', kind: 'text', hint: 'For example: casual, neutral, formal' },
      { key: 'personality', label: 'Personality traits', kind: 'list', hint: 'One trait per line.' },
      { key: 'audience', label: 'Audience', kind: 'text', hint: 'Who reads the text.' },
    ],
  },
  {
    legend: 'Language and length',
    fields: [
      { key: 'readingLevel', label: 'Reading level', kind: 'text', hint: 'For example: plain English, grade 8' },
      { key: 'language', label: 'Language', kind: 'text', hint: 'For example: British English' },
      { key: 'length', label: 'Length', kind: 'text', hint: 'For example: short, two or three sentences' },
      { key: 'maxWords', label: 'Maximum words', kind: 'limit', hint: 'A whole number; leave empty for no limit.' },
      { key: 'maxSentences', label: 'Maximum sentences', kind: 'limit', hint: 'A whole number; leave empty for no limit.' },
      { key: 'emoji', label: 'Emoji', kind: 'emoji' },
    ],
  },
  {
    legend: 'Words',
    fields: [
      { key: 'vocabulary', label: 'Preferred vocabulary', kind: 'vocabulary', hint: 'Replace the first word or phrase with the second.' },
      { key: 'avoid', label: 'Words and phrases to avoid', kind: 'list', hint: 'One per line.' },
      { key: 'casing', label: 'Brand spellings', kind: 'list', hint: 'One per line, exactly as it must be written (GitHub, iPhone).' },
    ],
  },
  {
    legend: 'Endings, examples and instructions',
    fields: [
      { key: 'signOff', label: 'Sign-off', kind: 'longText', hint: 'Ends every text, exactly as written.' },
      { key: 'examples', label: 'Before and after examples', kind: 'examples' },
      { key: 'instructions', label: 'Other instructions', kind: 'longText' },
    ],
  },
];

export const WELL_KNOWN_KEYS: ReadonlySet<string> = new Set(FIELD_GROUPS.flatMap((group) => group.fields.map((field) => field.key)));

const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * Whether the form control can show this value without changing it. A value of another shape
 * (tone as a list, say) is still valid for the service; the form leaves it to the JSON view.
 */
export function formCanEdit(kind: FieldKind, value: unknown): boolean {
  if (value === undefined) return true;
  switch (kind) {
    case 'text':
    case 'longText':
      return isString(value);
    case 'list':
      return isString(value) || (Array.isArray(value) && value.every(isString));
    case 'limit':
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
    case 'emoji':
      return typeof value === 'boolean' || isString(value);
    case 'vocabulary':
      return isPlainObject(value) && Object.values(value).every(isString);
    case 'examples':
      return Array.isArray(value) && value.every((item) => isPlainObject(item) && isString(item.before ?? '') && isString(item.after ?? ''));
  }
}
