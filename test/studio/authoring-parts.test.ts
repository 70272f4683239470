/** The studio's term rows and variant edits, without a browser: what a table row stores and what renaming keeps. */
import { describe, expect, it } from 'vitest';
import { entryOf, matchingRows, rowOf, termsOf } from '../../studio/src/personas/term-rows.js';
import { variantNameProblem, variantsOf, withoutVariant, withRenamedVariant, withVariant } from '../../studio/src/personas/variant-names.js';
import { termBase } from '../../src/personas/catalogue/term-base.js';
import { INVALID } from '../../src/personas/catalogue/index.js';

describe('term rows', () => {
  const entries = [
    { term: 'sign-in', use: 'preferred', replaces: ['login', 'log-in'] },
    { term: 'utilize', use: 'forbidden', suggest: 'use', caseSensitive: false, forms: 'exact' },
    { term: 'Acme Cloud', use: 'keep', caseSensitive: true, note: 'product name' },
  ];

  it('reads every stored entry back as it was written, so an untouched table changes nothing', () => {
    expect(termsOf(entries.map(rowOf))).toEqual(entries);
  });

  it('stores a row as the catalogue accepts it: trimmed, replaces split on |, unset options left out, a row without a term not at all', () => {
    const row = { term: '  sign-on ', use: 'preferred' as const, replaces: ' logon |  | log on ', suggest: ' ', caseSensitive: '' as const, forms: '' as const, note: '' };
    expect(entryOf(row)).toEqual({ term: 'sign-on', use: 'preferred', replaces: ['logon', 'log on'] });
    expect(entryOf({ ...row, term: '   ' })).toBeUndefined();
    expect(termsOf([{ ...row, term: '' }])).toBeUndefined();
    expect(termBase.parse(termsOf([row, ...entries.map(rowOf)]))).not.toBe(INVALID);
  });

  it('searches every column, any case', () => {
    const rows = entries.map(rowOf);
    expect(matchingRows(rows, 'LOG-IN')).toEqual([0]);
    expect(matchingRows(rows, 'product')).toEqual([2]);
    expect(matchingRows(rows, '  ')).toEqual([0, 1, 2]);
  });
});

describe('variant edits', () => {
  const attributes = { tone: 'warm', variants: { 'de-DE': { locale: 'de-DE' }, chat: { maxWords: 40 } }, custom: 1 };

  it('renames in place and keeps every other key where it was', () => {
    const renamed = withRenamedVariant(attributes, 'de-DE', 'de-AT');
    expect(Object.keys(renamed)).toEqual(['tone', 'variants', 'custom']);
    expect(Object.keys(renamed.variants as object)).toEqual(['de-AT', 'chat']);
    expect((renamed.variants as Record<string, unknown>)['de-AT']).toEqual({ locale: 'de-DE' });
  });

  it('adds, edits and removes; the last one removed takes the attribute with it', () => {
    const added = withVariant(attributes, 'press', {});
    expect(Object.keys(variantsOf(added)!)).toEqual(['de-DE', 'chat', 'press']);
    expect(variantsOf(withVariant(added, 'chat', { maxWords: 60 }))!.chat).toEqual({ maxWords: 60 });
    expect(withoutVariant(withoutVariant(attributes, 'de-DE'), 'chat')).toEqual({ tone: 'warm', custom: 1 });
  });

  it('checks a name with the service’s rule and against the others', () => {
    expect(variantNameProblem('support chat', [])).toMatch(/^Use at most 40 letters/);
    expect(variantNameProblem('x'.repeat(41), [])).toMatch(/^Use at most 40 letters/);
    expect(variantNameProblem('chat', ['chat'])).toBe('There is already a variant named “chat”.');
    expect(variantNameProblem('support-chat', ['chat'])).toBeUndefined();
  });

  it('leaves a `variants` it cannot draw to the JSON view', () => {
    expect(variantsOf({ variants: ['de-DE'] })).toBeUndefined();
    expect(variantsOf({ variants: { 'de-DE': 'x' } })).toBeUndefined();
    expect(variantsOf({})).toEqual({});
  });
});
