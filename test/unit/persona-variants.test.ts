import { describe, expect, it } from 'vitest';
import { ATTRIBUTE_KEYS, parseAttributes } from '../../src/personas/catalogue/index.js';
import { checkAttributes, mergeVariant, variantNames, variantOf } from '../../src/personas/variants.js';
import { DomainError } from '../../src/errors.js';
import { MERGES } from '../helpers/variant-merges.js';

describe("a variant's merge over the base", () => {
  it('has an expectation for every attribute of the catalogue a variant may set', () => {
    expect(ATTRIBUTE_KEYS.filter((key) => key !== 'variants' && !(key in MERGES))).toEqual([]);
  });

  it.each(Object.entries(MERGES))('%s', (key, { base, variant, merged }) => {
    expect(mergeVariant({ [key]: base, variants: { v: { [key]: variant } } }, { [key]: variant })).toEqual({ [key]: merged });
    // A key the base does not set is the variant's alone, and one the variant does not set is the base's.
    expect(mergeVariant({}, { [key]: variant })).toEqual({ [key]: variant });
    expect(mergeVariant({ [key]: base }, {})).toEqual({ [key]: base });
  });

  it('an enforce that is not an object on either side is replaced', () => {
    expect(mergeVariant({ enforce: { avoid: false } }, { enforce: false })).toEqual({ enforce: false });
    expect(mergeVariant({ enforce: false }, { enforce: { avoid: 'recommended' } })).toEqual({ enforce: { avoid: 'recommended' } });
  });

  it("null in a variant removes the base's value; the author's own keys of the base stay", () => {
    expect(mergeVariant({ maxWords: 120, brand: 'Acme', tone: 'warm' }, { maxWords: null })).toEqual({ brand: 'Acme', tone: 'warm' });
  });

  it('the merged vocabulary is read with the variant winning for a term in another case', () => {
    const merged = mergeVariant({ vocabulary: { Customers: 'members' } }, { vocabulary: { customers: 'Kunden' } });
    expect(parseAttributes(merged).values.vocabulary).toEqual([{ from: 'customers', to: 'Kunden' }]);
  });

  it('names the variants there are, and refuses an unknown one listing them', () => {
    const attributes = { tone: 'warm', variants: { 'de-DE': { locale: 'de-DE' }, 'support-chat': { maxWords: 40 } } };
    expect(variantNames(attributes)).toEqual(['de-DE', 'support-chat']);
    expect(variantOf(attributes, 'p1', 'support-chat')).toEqual({ tone: 'warm', maxWords: 40 });
    expect(() => variantOf(attributes, 'p1', 'fr-FR')).toThrow(/unknown variant "fr-FR" of persona "p1"; known variants: de-DE, support-chat/);
    expect(() => variantOf({}, 'p1', 'x')).toThrow(/has no variants/);
  });

  it('refuses a variant whose union with the base breaks a limit, and a locale Intl refuses', () => {
    const many = (prefix: string) => Array.from({ length: 150 }, (_, i) => `${prefix}${i}`);
    expect(() => checkAttributes({ avoid: many('a'), variants: { big: { avoid: many('b') } } })).toThrow(DomainError);
    expect(() => checkAttributes({ avoid: many('a'), variants: { big: { avoid: many('a') } } })).not.toThrow();
    expect(() => checkAttributes({ locale: 'de-1996-1996' })).toThrow(/attributes.locale must be a BCP 47 language tag/);
    expect(() => checkAttributes({ variants: { de: { locale: 'de-1996-1996' } } })).toThrow(/attributes.variants must be/);
    expect(() => checkAttributes({ locale: 'ja', variants: { 'de-CH': { locale: 'de-CH-1996' } } })).not.toThrow();
  });

  it('refuses variant names and keys outside the contract', () => {
    const invalid = (variants: unknown) => parseAttributes({ variants }).invalid.length > 0;
    expect(invalid({ 'a b': {} })).toBe(true);
    expect(invalid({ ['x'.repeat(41)]: {} })).toBe(true);
    expect(invalid({ v: { variants: {} } })).toBe(true);
    expect(invalid({ v: { brand: 'Acme' } })).toBe(true);
    expect(invalid({ v: { maxWords: 'ten' } })).toBe(true);
    expect(invalid(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`v${i}`, {}])))).toBe(true);
    expect(invalid(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`v${i}`, { maxWords: null }])))).toBe(false);
  });
});
