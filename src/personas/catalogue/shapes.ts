/**
 * The value shapes well-known attributes accept. Each shape states its accepted values twice —
 * as JSON Schema (OpenAPI, write-time validation) and as a parser (prompt, rules, studio) — side
 * by side, and test/unit/attribute-catalogue.test.ts proves on random JSON that both agree.
 *
 * Pure and free of Node and package imports: the studio bundles this folder too.
 */
import { RULE_IDS, type RuleId, SEVERITIES, type VocabularyEntry } from '../../rules/types.js';
import { isJsonObject } from '../../json-object.js';

/** What a parser returns for a value of none of the accepted shapes. */
export const INVALID: unique symbol = Symbol('invalid attribute value');

export type JsonSchema = Record<string, unknown>;

export interface Shape<T> {
  /** The accepted values as JSON Schema, `null` aside (null always means "not set"). */
  readonly schema: JsonSchema;
  /** The accepted values in words, completing "attributes.tone must be …". */
  readonly expected: string;
  /** The normalized value; undefined when an accepted value sets nothing (empty, blank); INVALID otherwise. */
  parse(value: unknown): T | undefined | typeof INVALID;
  /**
   * A write's 400 names the entry and field at fault inside the value (`attributes.terms.12.use
   * must be one of …`) rather than restating the whole shape: for lists of objects.
   */
  readonly preciseErrors?: boolean;
}

const STRING = { type: 'string' } as const;
const STRING_LIST = { type: 'array', items: STRING } as const;

/**
 * What keeps a persona's rules cheap to compile and run, whoever wrote it: the rules turn
 * every term into a regular expression, and a 20,000-character phrase overflowed its
 * compiler while 2,600 terms made one pattern of megabytes (docs/rules-and-attributes.md, "Attribute limits").
 */
export const MAX_TERM_LENGTH = 100;
export const MAX_TERMS = 200;
export const MAX_SIGN_OFF_LENGTH = 200;

const TERM = { type: 'string', maxLength: MAX_TERM_LENGTH } as const;
/** Characters as JSON Schema counts them (code points), not UTF-16 units. */
const fits = (value: string, max: number): boolean => {
  if (value.length <= max) return true;
  if (value.length > max * 2) return false;
  let count = 0;
  for (const _ of value) if (++count > max) return false;
  return true;
};
const isTerm = (value: unknown): value is string => isString(value) && fits(value, MAX_TERM_LENGTH);

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
const nonEmpty = <T>(items: T[]): T[] | undefined => (items.length > 0 ? items : undefined);

/** Prose: surrounding blanks trimmed, line breaks kept. */
export const text: Shape<string> = {
  schema: STRING,
  expected: 'a string',
  parse: (value) => (isString(value) ? value.trim() || undefined : INVALID),
};

/** Prose, or several short phrases ("warm", "direct"). */
export const textOrList: Shape<string | string[]> = {
  schema: { anyOf: [STRING, STRING_LIST] },
  expected: 'a string or a list of strings',
  parse(value) {
    if (isString(value)) return value.trim() || undefined;
    if (!isStringList(value)) return INVALID;
    return nonEmpty(value.map((item) => item.trim()).filter((item) => item !== ''));
  },
};

/**
 * Words or phrases the rules match literally: a list, or one string holding one term. Blanks
 * are collapsed and text is NFC (the form almost all text arrives in); duplicates ignoring case
 * keep their first spelling.
 */
export const terms: Shape<string[]> = {
  schema: { anyOf: [TERM, { type: 'array', maxItems: MAX_TERMS, items: TERM }] },
  expected: `a string or a list of at most ${MAX_TERMS} strings, each at most ${MAX_TERM_LENGTH} characters`,
  parse(value) {
    const isTermList = (list: unknown): list is string[] => Array.isArray(list) && list.length <= MAX_TERMS && list.every(isTerm);
    const candidates = isTerm(value) ? [value] : isTermList(value) ? value : undefined;
    if (!candidates) return INVALID;
    const seen = new Set<string>();
    const kept: string[] = [];
    for (const candidate of candidates) {
      const term = cleanTerm(candidate);
      if (term === '' || seen.has(term.toLowerCase())) continue;
      seen.add(term.toLowerCase());
      kept.push(term);
    }
    return nonEmpty(kept);
  },
};

/** `{ "customers": "members" }`: each key is replaced by its value. */
export const replacements: Shape<VocabularyEntry[]> = {
  schema: { type: 'object', maxProperties: MAX_TERMS, propertyNames: TERM, additionalProperties: TERM },
  expected: `an object mapping each term to its replacement (at most ${MAX_TERMS} terms; each term and replacement at most ${MAX_TERM_LENGTH} characters)`,
  parse(value) {
    if (!isJsonObject(value)) return INVALID;
    const entries = Object.entries(value);
    if (entries.length > MAX_TERMS || !entries.every(([from, to]) => isTerm(from) && isTerm(to))) return INVALID;
    const seen = new Set<string>();
    const kept: VocabularyEntry[] = [];
    for (const [rawFrom, rawTo] of Object.entries(value as Record<string, string>)) {
      const from = cleanTerm(rawFrom);
      const to = cleanTerm(rawTo);
      if (from === '' || to === '' || from === to || seen.has(from.toLowerCase())) continue;
      seen.add(from.toLowerCase());
      kept.push({ from, to });
    }
    return nonEmpty(kept);
  },
};

/** true (where they fit), false or "none" (never), or a phrase such as "sparingly". */
export const emojiPolicy: Shape<boolean | string> = {
  schema: { anyOf: [{ type: 'boolean' }, STRING] },
  expected: 'true, false, "none" or a phrase such as "sparingly"',
  parse(value) {
    if (typeof value === 'boolean') return value;
    if (!isString(value)) return INVALID;
    const phrase = value.trim();
    return phrase.toLowerCase() === 'none' ? false : phrase || undefined;
  },
};

/** A positive whole number. A numeric string is not one: the author sees a 400, not a silent guess. */
export const limit: Shape<number> = {
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  expected: 'a whole number of at least 1',
  parse: (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : INVALID),
};

/** Text appended verbatim: line endings normalized to \n, surrounding blanks trimmed. */
export const closingText: Shape<string> = {
  schema: { type: 'string', maxLength: MAX_SIGN_OFF_LENGTH },
  expected: `a string of at most ${MAX_SIGN_OFF_LENGTH} characters`,
  parse: (value) => (isString(value) && fits(value, MAX_SIGN_OFF_LENGTH) ? value.replace(/\r\n?/g, '\n').trim() || undefined : INVALID),
};

export type ExamplePair = { before: string; after: string } & Record<string, unknown>;

/** Before/after pairs; any other field of a pair is kept and shown with it. */
export const examplePairs: Shape<ExamplePair[]> = {
  schema: {
    type: 'array',
    items: { type: 'object', required: ['before', 'after'], properties: { before: STRING, after: STRING }, additionalProperties: true },
  },
  expected: 'a list of { "before": "…", "after": "…" } objects',
  parse(value) {
    const isPair = (item: unknown): item is ExamplePair => isJsonObject(item) && isString(item.before) && isString(item.after);
    return Array.isArray(value) && value.every(isPair) ? nonEmpty(value) : INVALID;
  },
};

/** Each rule's switch: off, or on with the severity its findings carry. */
export interface RuleSettings {
  readonly off: ReadonlySet<RuleId>;
  readonly recommended: ReadonlySet<RuleId>;
}

/**
 * `false` switches every rule off, `true` none; `{ "avoid": false }` single ones by rule id, and a
 * rule set to `"required"` or `"recommended"` is on with that severity (`true`: the default,
 * required). An unknown rule id is refused rather than ignored, so a typo cannot leave a rule on.
 */
export const ruleSwitches: Shape<RuleSettings> = {
  schema: {
    anyOf: [
      { type: 'boolean' },
      {
        type: 'object',
        properties: Object.fromEntries(RULE_IDS.map((rule) => [rule, { anyOf: [{ type: 'boolean' }, { type: 'string', enum: [...SEVERITIES] }] }])),
        additionalProperties: false,
      },
    ],
  },
  expected: `true, false, or an object of rule ids (${RULE_IDS.join(', ')}) set to true, false, "required" or "recommended"`,
  parse(value) {
    if (typeof value === 'boolean') return { off: new Set(value ? [] : RULE_IDS), recommended: new Set() };
    if (!isJsonObject(value)) return INVALID;
    const entries = Object.entries(value);
    const isRule = (id: string): id is RuleId => (RULE_IDS as readonly string[]).includes(id);
    const isSwitch = (on: unknown) => typeof on === 'boolean' || (SEVERITIES as readonly unknown[]).includes(on);
    if (!entries.every(([id, on]) => isRule(id) && isSwitch(on))) return INVALID;
    const ruleIds = (wanted: unknown) => new Set(entries.filter(([, on]) => on === wanted).map(([id]) => id as RuleId));
    return { off: ruleIds(false), recommended: ruleIds('recommended') };
  },
};

/** A whole score from 0 to 100, such as `minScore`. */
export const score: Shape<number> = {
  schema: { type: 'integer', minimum: 0, maximum: 100 },
  expected: 'a whole number from 0 to 100',
  parse: (value) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 100 ? value : INVALID),
};

function cleanTerm(term: string): string {
  return term.normalize('NFC').trim().replace(/\s+/gu, ' ');
}
