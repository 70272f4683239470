/**
 * The shape of `terms`, a term base: entries of a term and how to use it. Like shapes.ts, pure
 * and free of Node and package imports (the studio bundles this folder).
 *
 * The bounds keep 2,000 entries cheap for the rules (src/rules/term-match.ts builds one token
 * trie of them, linear in the text whatever their number) and for the prompt, which lists only
 * the first entries that fit its own budget (termBasePromptLines).
 */
import { isJsonObject } from '../../json-object.js';
import { quote } from './prompt-lines.js';
import { INVALID, MAX_TERM_LENGTH, type Shape } from './shapes.js';

export const TERM_USES = ['preferred', 'forbidden', 'keep'] as const;
export type TermUse = (typeof TERM_USES)[number];
export const TERM_FORMS = ['exact', 'inflected'] as const;
export type TermForms = (typeof TERM_FORMS)[number];

export const MAX_TERM_ENTRIES = 2000;
export const MAX_TERM_REPLACES = 20;
export const MAX_TERM_NOTE_LENGTH = 500;

/** A term base entry, normalized: blanks collapsed, NFC, empty replaces dropped. */
export interface TermEntry {
  readonly term: string;
  readonly use: TermUse;
  /** `preferred` only: what is rewritten to `term`. */
  readonly replaces: readonly string[];
  /** `forbidden` only: what to write instead, shown in the finding. */
  readonly suggest?: string;
  /** Unset: false, but true for `keep` (kept verbatim, capitals included). */
  readonly caseSensitive: boolean;
  /** As written; unset, each matched word is inflected when it is one lower-case word (inflectsByDefault). */
  readonly forms?: TermForms;
  readonly note?: string;
}

const TERM = { type: 'string', minLength: 1, maxLength: MAX_TERM_LENGTH } as const;

const ENTRY_SCHEMA = {
  type: 'object',
  required: ['term', 'use'],
  additionalProperties: false,
  properties: {
    term: TERM,
    use: { type: 'string', enum: [...TERM_USES] },
    replaces: { type: 'array', maxItems: MAX_TERM_REPLACES, items: TERM },
    suggest: TERM,
    caseSensitive: { type: 'boolean' },
    forms: { type: 'string', enum: [...TERM_FORMS] },
    note: { type: 'string', maxLength: MAX_TERM_NOTE_LENGTH },
  },
} as const;

/** Characters as JSON Schema counts them (code points), not UTF-16 units. */
const fits = (value: string, min: number, max: number): boolean => {
  if (value.length < min) return false;
  if (value.length <= max) return true;
  if (value.length > max * 2) return false;
  let count = 0;
  for (const _ of value) if (++count > max) return false;
  return true;
};
const isTerm = (value: unknown): value is string => typeof value === 'string' && fits(value, 1, MAX_TERM_LENGTH);
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
const oneOf = (list: readonly string[]) => (value: unknown) => typeof value === 'string' && list.includes(value);
const ENTRY_KEYS = new Set(Object.keys(ENTRY_SCHEMA.properties));

function isEntry(value: unknown): value is Record<string, unknown> {
  if (!isJsonObject(value)) return false;
  if (!Object.keys(value).every((key) => ENTRY_KEYS.has(key))) return false;
  const { term, use, replaces, suggest, caseSensitive, forms, note } = value;
  return (
    isTerm(term) &&
    oneOf(TERM_USES)(use) &&
    optional(replaces, (list) => Array.isArray(list) && list.length <= MAX_TERM_REPLACES && list.every(isTerm)) &&
    optional(suggest, isTerm) &&
    optional(caseSensitive, (flag) => typeof flag === 'boolean') &&
    optional(forms, oneOf(TERM_FORMS)) &&
    optional(note, (text) => typeof text === 'string' && fits(text, 0, MAX_TERM_NOTE_LENGTH))
  );
}

const clean = (term: string): string => term.normalize('NFC').trim().replace(/\s+/gu, ' ');

/**
 * `[{ "term": "sign-in", "use": "preferred", "replaces": ["login"] }, …]`. A term that is blank
 * once trimmed sets nothing, and a term repeated (any case) keeps its first entry, as variants
 * merge them. `preciseErrors`: a write names the entry and field at fault
 * (`attributes.terms.12.use must be one of …`), not only the shape.
 */
export const termBase: Shape<TermEntry[]> = {
  schema: { type: 'array', maxItems: MAX_TERM_ENTRIES, items: ENTRY_SCHEMA },
  expected:
    `a list of at most ${MAX_TERM_ENTRIES} entries { "term", "use": "preferred" | "forbidden" | "keep", "replaces"?: [at most ${MAX_TERM_REPLACES} terms], ` +
    `"suggest"?, "caseSensitive"?: boolean, "forms"?: "exact" | "inflected", "note"? } (terms at most ${MAX_TERM_LENGTH} characters, notes ${MAX_TERM_NOTE_LENGTH})`,
  preciseErrors: true,
  parse(value) {
    if (!Array.isArray(value) || value.length > MAX_TERM_ENTRIES || !value.every(isEntry)) return INVALID;
    const seen = new Set<string>();
    const kept: TermEntry[] = [];
    for (const raw of value) {
      const term = clean(raw.term as string);
      if (term === '' || seen.has(term.toLowerCase())) continue;
      seen.add(term.toLowerCase());
      const use = raw.use as TermUse;
      const replaces = use === 'preferred' ? uniqueTerms((raw.replaces as string[] | undefined) ?? [], term) : [];
      const suggest = use === 'forbidden' && typeof raw.suggest === 'string' ? clean(raw.suggest) || undefined : undefined;
      const note = typeof raw.note === 'string' ? raw.note.trim() || undefined : undefined;
      kept.push({
        term,
        use,
        replaces,
        caseSensitive: (raw.caseSensitive as boolean | undefined) ?? use === 'keep',
        ...(suggest === undefined ? {} : { suggest }),
        ...(raw.forms === undefined ? {} : { forms: raw.forms as TermForms }),
        ...(note === undefined ? {} : { note }),
      });
    }
    return kept.length > 0 ? kept : undefined;
  },
};

/** Replaced words, each once (any case), never the term itself. */
function uniqueTerms(list: readonly string[], term: string): string[] {
  const seen = new Set([term.toLowerCase()]);
  const kept: string[] = [];
  for (const raw of list) {
    const word = clean(raw);
    if (word === '' || seen.has(word.toLowerCase())) continue;
    seen.add(word.toLowerCase());
    kept.push(word);
  }
  return kept;
}

/** `forms` unset: a lower-case word without blanks ("login", "sign-in") is matched with its inflections. */
export function inflectsByDefault(word: string): boolean {
  return !/\s/u.test(word) && word === word.toLowerCase() && word !== word.toUpperCase();
}

/**
 * How many entries, and how many characters of them, the system message lists. A term base of
 * 2,000 entries would make a prompt of 100,000 characters, paid on every call; the rules check
 * every entry after generation all the same, and the repair call names those the answer broke.
 */
export const PROMPT_MAX_TERMS = 150;
export const PROMPT_MAX_TERM_CHARACTERS = 6000;

export function termBasePromptLines(entries: readonly TermEntry[]): string[] {
  const lines: string[] = [];
  let characters = 0;
  for (const entry of entries) {
    const line = entryLine(entry);
    if (lines.length >= PROMPT_MAX_TERMS || characters + line.length > PROMPT_MAX_TERM_CHARACTERS) break;
    lines.push(line);
    characters += line.length;
  }
  const more = entries.length - lines.length;
  if (more > 0) lines.push(`- and ${more} more ${more === 1 ? 'term' : 'terms'} of the term base, checked after writing`);
  return ['Term base (follow each entry):', ...lines];
}

function entryLine(entry: TermEntry): string {
  const note = entry.note === undefined ? '' : ` (note: ${quote(entry.note)})`;
  const term = quote(entry.term);
  switch (entry.use) {
    case 'preferred':
      return entry.replaces.length > 0 ? `- use ${term} instead of ${entry.replaces.map(quote).join(', ')}${note}` : `- prefer ${term}${note}`;
    case 'forbidden':
      return `- never use ${term}${entry.suggest === undefined ? '' : `; write ${quote(entry.suggest)} instead`}${note}`;
    case 'keep':
      return `- keep ${term} exactly as written wherever the text has it: never translate or respell it${note}`;
  }
}
