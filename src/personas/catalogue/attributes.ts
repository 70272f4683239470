/**
 * The one list of well-known persona attributes. Everything about a key lives in its entry:
 * the shapes it accepts and how they are normalized (shapes.ts), how the system message states
 * it, the rule it feeds, its documentation and example, and the studio field that edits it.
 * The prompt builder, the rules, the OpenAPI schema of `attributes` (and so the SDK's types),
 * write-time validation and the studio's form all read this object; none keeps its own list.
 *
 * Entries are in the order the system message states them. Any other key is the author's own:
 * it is stored verbatim and passed to the model as `key: value`.
 */
import type { RuleId } from '../../rules/types.js';
import { labelled, labelledList, quote } from './prompt-lines.js';
import { locale, variantsShape } from './locale-and-variants.js';
import { MAX_TERM_ENTRIES, PROMPT_MAX_TERMS, termBase, termBasePromptLines } from './term-base.js';
import {
  closingText,
  emojiPolicy,
  examplePairs,
  limit,
  replacements,
  ruleSwitches,
  score,
  type Shape,
  terms,
  text,
  textOrList,
} from './shapes.js';

/** The studio's control for a key; the studio draws each kind its own way. */
export type FieldKind = 'text' | 'longText' | 'list' | 'limit' | 'emoji' | 'vocabulary' | 'examples' | 'terms';
export type FieldGroup = 'voice' | 'languageAndLength' | 'words' | 'endings';

export interface StudioField {
  group: FieldGroup;
  label: string;
  kind: FieldKind;
  hint?: string;
}

export interface AttributeSpec<T> {
  shape: Shape<T>;
  /** For the API documentation: what the key means and what the service does with it. */
  description: string;
  example: unknown;
  /** The rule this key configures (checked and enforced after generation), if any. */
  rule?: RuleId;
  /**
   * Its lines in the system message's persona section; 'own section' for examples, which get a
   * section of their own; 'control' for keys that steer the service and never reach the model.
   */
  prompt: ((value: T) => string[]) | 'own section' | 'control';
  /** Absent: edited in the studio's JSON view only. */
  field?: StudioField;
}

const attribute = <T>(spec: AttributeSpec<T>): AttributeSpec<T> => spec;

const prose = (label: string) => (value: string) => labelled(label, value);
const proseOrList = (label: string) => (value: string | string[]) =>
  typeof value === 'string' ? labelled(label, value) : labelledList(label, value);
const quotedTerms = (label: string) => (value: string[]) => [`${label}: ${value.map(quote).join(', ')}`];
const atMost = (unit: string) => (value: number) => [`Use at most ${value} ${unit}.`];

export const ATTRIBUTE_CATALOGUE = {
  description: attribute({
    shape: text,
    description: 'Who speaks, in a sentence or two.',
    example: 'The support team of Acme, a project tool for small agencies.',
    prompt: prose('Description'),
    field: { group: 'voice', label: 'Description', kind: 'longText', hint: 'Who speaks, in a sentence or two.' },
  }),
  tone: attribute({
    shape: textOrList,
    description: 'The tone of voice.',
    example: ['warm', 'direct'],
    prompt: proseOrList('Tone'),
    field: { group: 'voice', label: 'Tone', kind: 'text', hint: 'For example: warm, direct' },
  }),
  formality: attribute({
    shape: text,
    description: 'How formal the text is.',
    example: 'casual but professional',
    prompt: prose('Formality'),
    field: { group: 'voice', label: 'Formality', kind: 'text', hint: 'For example: casual, neutral, formal' },
  }),
  audience: attribute({
    shape: textOrList,
    description: 'Who reads the text.',
    example: 'small-business owners',
    prompt: proseOrList('Audience'),
    field: { group: 'voice', label: 'Audience', kind: 'text', hint: 'Who reads the text.' },
  }),
  personality: attribute({
    shape: textOrList,
    description: 'Personality traits of the voice.',
    example: ['helpful', 'upbeat'],
    prompt: proseOrList('Personality'),
    field: { group: 'voice', label: 'Personality traits', kind: 'list', hint: 'One trait per line.' },
  }),
  readingLevel: attribute({
    shape: text,
    description: 'How easy the text must be to read.',
    example: 'grade 8',
    prompt: prose('Reading level'),
    field: { group: 'languageAndLength', label: 'Reading level', kind: 'text', hint: 'For example: plain English, grade 8' },
  }),
  language: attribute({
    shape: text,
    description: "The language to write in; the text is translated if it is in another one. Unset: the text's own language is kept.",
    example: 'English (US)',
    prompt: prose('Language'),
    field: { group: 'languageAndLength', label: 'Language', kind: 'text', hint: 'For example: British English' },
  }),
  locale: attribute({
    shape: locale,
    description:
      'The locale to write for, as a BCP 47 tag (stored as written): the model is asked for its language, and the word rules (vocabulary, avoid, terms, maxWords) ' +
      'find words as that locale segments them, so Japanese text without spaces is counted and matched by words. A variant may set its own.',
    example: 'de-DE',
    prompt: (value) => [`Locale: ${value} (write in its language, with its spelling and conventions)`],
    field: { group: 'languageAndLength', label: 'Locale', kind: 'text', hint: 'A BCP 47 tag, for example de-DE, en-GB or ja' },
  }),
  length: attribute({
    shape: text,
    description: 'How long the text should be, in words the model reads (see maxWords and maxSentences for checked limits).',
    example: 'shorter than the original',
    prompt: prose('Length'),
    field: { group: 'languageAndLength', label: 'Length', kind: 'text', hint: 'For example: short, two or three sentences' },
  }),
  emoji: attribute({
    shape: emojiPolicy,
    rule: 'emoji',
    description: 'Emoji policy: `false` or `"none"` (never; any emoji in the answer is removed), `true` (where they fit) or a phrase such as `"sparingly"`.',
    example: false,
    prompt: (value) => (value === true ? ['Emoji: use them where they fit the voice.'] : value === false ? ['Emoji: never use emoji.'] : labelled('Emoji', value)),
    field: { group: 'languageAndLength', label: 'Emoji', kind: 'emoji' },
  }),
  vocabulary: attribute({
    shape: replacements,
    rule: 'vocabulary',
    description: 'Preferred terms: each key is replaced by its value in the answer (whole words, any case, the case of what it replaces kept).',
    example: { customers: 'members' },
    prompt: (value) => ['Prefer these terms:', ...value.map(({ from, to }) => `- use ${quote(to)} instead of ${quote(from)}`)],
    field: { group: 'words', label: 'Preferred vocabulary', kind: 'vocabulary', hint: 'Replace the first word or phrase with the second.' },
  }),
  avoid: attribute({
    shape: terms,
    rule: 'avoid',
    description: 'Banned words or phrases (one string is one phrase). An answer that still uses one gets one repair call; what remains is reported, never silently deleted.',
    example: ['synergy', 'leverage'],
    prompt: quotedTerms('Never use these words or phrases'),
    field: { group: 'words', label: 'Words and phrases to avoid', kind: 'list', hint: 'One per line.' },
  }),
  casing: attribute({
    shape: terms,
    rule: 'casing',
    description: 'Spellings to keep exactly, such as brand names; other capitalizations in the answer are respelled.',
    example: ['Acme Cloud', 'GitHub'],
    prompt: quotedTerms('Always spell these exactly as written'),
    field: { group: 'words', label: 'Brand spellings', kind: 'list', hint: 'One per line, exactly as it must be written (GitHub, iPhone).' },
  }),
  terms: attribute({
    shape: termBase,
    rule: 'terms',
    description:
      `A term base of at most ${MAX_TERM_ENTRIES} entries, each a \`term\` and its \`use\`: \`"preferred"\` rewrites each of \`replaces\` to the term (as \`vocabulary\` does), ` +
      '`"forbidden"` reports the term with its `suggest`ion and gets one repair call (as `avoid`), `"keep"` requires the term verbatim in the answer wherever the original has it ' +
      '(product names, do-not-translate; as `preserve`). `caseSensitive` defaults to false, true for `keep`; `forms` defaults to `"inflected"` for a lower-case word ' +
      'without blanks (also matching its -s, -es, -\'s, -ed and -ing, the ending kept on the replacement) and `"exact"` otherwise; `note` is shown to the model. ' +
      `The system message lists the first ${PROMPT_MAX_TERMS} entries (fewer when long); the rules check all of them. Findings carry \`term\`.`,
    example: [
      { term: 'sign-in', use: 'preferred', replaces: ['login', 'log-in'] },
      { term: 'utilize', use: 'forbidden', suggest: 'use' },
      { term: 'Acme Cloud', use: 'keep', note: 'product name, never translated' },
    ],
    prompt: termBasePromptLines,
    field: {
      group: 'words',
      label: 'Term base',
      kind: 'terms',
      hint: 'Preferred terms replace what they list, forbidden ones are reported with the suggestion, kept ones must survive verbatim. Separate several replaced terms with |.',
    },
  }),
  maxWords: attribute({
    shape: limit,
    rule: 'maxWords',
    description: 'At most this many words. A longer answer gets one repair call; what remains is reported.',
    example: 120,
    prompt: atMost('words'),
    field: { group: 'languageAndLength', label: 'Maximum words', kind: 'limit', hint: 'A whole number; leave empty for no limit.' },
  }),
  maxSentences: attribute({
    shape: limit,
    rule: 'maxSentences',
    description: 'At most this many sentences. A longer answer gets one repair call; what remains is reported.',
    example: 6,
    prompt: atMost('sentences'),
    field: { group: 'languageAndLength', label: 'Maximum sentences', kind: 'limit', hint: 'A whole number; leave empty for no limit.' },
  }),
  signOff: attribute({
    shape: closingText,
    rule: 'signOff',
    description: 'Ends every text, exactly as written; appended after a blank line when the answer lacks it.',
    example: 'Cheers,\nThe Acme team',
    prompt: prose('End with this sign-off'),
    field: { group: 'endings', label: 'Sign-off', kind: 'longText', hint: 'Ends every text, exactly as written.' },
  }),
  examples: attribute({
    shape: examplePairs,
    description: 'Before/after pairs that show the voice; other fields of a pair are shown with it.',
    example: [{ before: 'Your ticket has been resolved.', after: "All fixed! Tell us if it acts up again." }],
    prompt: 'own section',
    field: { group: 'endings', label: 'Before and after examples', kind: 'examples' },
  }),
  instructions: attribute({
    shape: text,
    description: 'Anything else the model should do.',
    example: 'Always end with one concrete next step.',
    prompt: prose('Instructions'),
    field: { group: 'endings', label: 'Other instructions', kind: 'longText' },
  }),
  enforce: attribute({
    shape: ruleSwitches,
    description:
      'Turns rules off after generation (the keys above still reach the model) or sets how much their findings weigh: `false` all of them off, ' +
      '`{ "avoid": false }` single ones by rule id, and `"required"` (the default, also `true`) or `"recommended"` per rule: a required finding fails a check, ' +
      'a recommended one only lowers the score, as in `{ "maxWords": "recommended", "avoid": "required" }`. ' +
      'This is also the switch of `preserve`, the rule every persona has without any attribute: the numbers, URLs, e-mail addresses, code and template placeholders ' +
      'of the content must all be in the answer (one repair call, then reported); `{ "preserve": false }` turns it off. Never shown to the model.',
    example: { avoid: false, maxWords: 'recommended' },
    prompt: 'control',
  }),
  minScore: attribute({
    shape: score,
    description:
      'The lowest score (0–100) a text may have and still pass a check; a judged refine scoring under it gets its one repair call aimed at the low-rated attributes. Never shown to the model.',
    example: 80,
    prompt: 'control',
    field: { group: 'endings', label: 'Minimum score', kind: 'limit', hint: 'A whole number from 0 to 100; leave empty for none.' },
  }),
  variants: attribute({
    shape: variantsShape(() => variantKeys()),
    description:
      'Named variants of the voice (`de-DE`, `support-chat`), each some of the attributes above (not `variants`), chosen per request with `"variant"`: ' +
      "the variant's values replace the base's key by key, `vocabulary` and `enforce` merge entry by entry (the variant's winning), " +
      '`avoid`, `casing` and `terms` are the union (the variant\'s `terms` entry winning for the same term), and null removes the base\'s value. ' +
      'Versioned, labelled and exported with the persona. Never shown to the model as such.',
    example: { 'de-DE': { locale: 'de-DE', signOff: 'Viele Grüße,\nIhr Acme-Team' }, 'support-chat': { maxWords: 60 } },
    prompt: 'control',
  }),
};

/** Every key a variant may set: the catalogue's own but `variants`. */
function variantKeys(): ReadonlyMap<string, Shape<unknown>> {
  const catalogue: Record<string, { shape: Shape<unknown> }> = ATTRIBUTE_CATALOGUE;
  return new Map(Object.entries(catalogue).filter(([key]) => key !== 'variants').map(([key, spec]) => [key, spec.shape]));
}

export type AttributeKey = keyof typeof ATTRIBUTE_CATALOGUE;
type ValueOf<S> = S extends AttributeSpec<infer T> ? T : never;

/** Normalized values of the well-known keys that a persona sets. */
export type AttributeValues = { -readonly [K in AttributeKey]?: ValueOf<(typeof ATTRIBUTE_CATALOGUE)[K]> };

export const ATTRIBUTE_KEYS = Object.keys(ATTRIBUTE_CATALOGUE) as AttributeKey[];

export function isWellKnownAttribute(key: string): key is AttributeKey {
  return Object.hasOwn(ATTRIBUTE_CATALOGUE, key);
}
