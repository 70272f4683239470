/**
 * A persona's variants (`attributes.variants`): one name picks a partial attribute object that
 * is merged over the base. Merging works on the attributes as written, so the merged object is
 * what the prompt, the rules, the judge and GET /v1/personas/{id}/variants/{name} all read, and
 * it is checked against the catalogue like any persona's attributes.
 *
 * - A key's value replaces the base's, except:
 *   - `vocabulary` and an object `enforce`: entry by entry, the variant's entry winning (for
 *     `vocabulary`, a term spelt in another case is the same term, as its rule reads it);
 *   - `avoid` and `casing`: the union, the base's terms first;
 *   - `terms`: the union by `term` (any case), the variant's entry winning for the same term.
 * - `examples` are replaced, not joined: they show one voice, and a German variant taught by the
 *   base's English examples would drift back to English.
 * - null removes the base's value (a variant without the base's `maxWords`).
 */
import { invalidRequest } from '../errors.js';
import { isJsonObject } from '../json-object.js';
import { parseAttributes, type VariantAttributes } from './catalogue/index.js';

type Merge = (base: unknown, variant: unknown) => unknown;

/** The same term as the rules read it: blanks collapsed, NFC, any case. */
const termKey = (term: string): string => term.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

const entries: Merge = (base, variant) => {
  if (!isJsonObject(base) || !isJsonObject(variant)) return variant;
  return { ...base, ...variant };
};

const vocabularyEntries: Merge = (base, variant) => {
  if (!isJsonObject(base) || !isJsonObject(variant)) return variant;
  const replaced = new Set(Object.keys(variant).map(termKey));
  return { ...Object.fromEntries(Object.entries(base).filter(([from]) => !replaced.has(termKey(from)))), ...variant };
};

/** Duplicates (any case) kept once, so a variant repeating the base's terms does not count them twice against the limit. */
const union: Merge = (base, variant) => {
  const seen = new Set<string>();
  return [...asList(base), ...asList(variant)].filter((term) => {
    const key = typeof term === 'string' ? termKey(term) : JSON.stringify(term);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

const termOf = (entry: unknown): string | undefined => (isJsonObject(entry) && typeof entry.term === 'string' ? termKey(entry.term) : undefined);

const unionByTerm: Merge = (base, variant) => {
  const variantTerms = asList(variant);
  const replaced = new Set(variantTerms.map(termOf).filter((term) => term !== undefined));
  return [...asList(base).filter((entry) => !replaced.has(termOf(entry) ?? '')), ...variantTerms];
};

/** Keys that do not simply replace the base's value. */
const MERGES: Readonly<Record<string, Merge>> = {
  vocabulary: vocabularyEntries,
  enforce: entries,
  avoid: union,
  casing: union,
  terms: unionByTerm,
};

/** The base (without `variants`) with the variant merged over it. */
export function mergeVariant(base: Record<string, unknown>, variant: VariantAttributes): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  delete merged.variants;
  for (const [key, value] of Object.entries(variant)) {
    if (key === 'variants') continue;
    if (value === null) delete merged[key];
    else merged[key] = merged[key] === undefined || merged[key] === null ? value : (MERGES[key] ?? ((_, own) => own))(merged[key], value);
  }
  return merged;
}

/** The names of a persona's variants, as written (none when it has none or holds an invalid `variants`). */
export function variantNames(attributes: Record<string, unknown>): string[] {
  return Object.keys(parseAttributes({ variants: attributes.variants }).values.variants ?? {});
}

/** The merged attributes of one variant, or a 400 naming the variants there are. */
export function variantOf(attributes: Record<string, unknown>, personaId: string, name: string): Record<string, unknown> {
  const variants = parseAttributes({ variants: attributes.variants }).values.variants ?? {};
  const variant = Object.hasOwn(variants, name) ? variants[name] : undefined;
  if (variant === undefined) throw unknownVariant(personaId, name, Object.keys(variants));
  return mergeVariant(attributes, variant);
}

export function unknownVariant(personaId: string, name: string, known: string[]) {
  const shown = JSON.stringify(name.slice(0, 64));
  return invalidRequest(
    known.length === 0
      ? `unknown variant ${shown}: persona "${personaId}" has no variants`
      : `unknown variant ${shown} of persona "${personaId}"; known variants: ${known.join(', ')}`,
  );
}

/**
 * Refuses attributes that could not be used whole: a well-known key of none of its shapes (the
 * schema already refuses those; `locale` is also checked by Intl), or a variant whose merge with
 * the base breaks a limit, such as a union of `avoid` terms past its maximum.
 */
export function checkAttributes(attributes: Record<string, unknown>): void {
  const { values, invalid } = parseAttributes(attributes);
  if (invalid[0]) throw invalidRequest(invalid[0].message);
  for (const [name, variant] of Object.entries(values.variants ?? {})) {
    const problem = parseAttributes(mergeVariant(attributes, variant)).invalid[0];
    if (problem) throw invalidRequest(`attributes.variants.${name} merged with the base: ${problem.message.replace(/^attributes\./, '')}`);
  }
}
