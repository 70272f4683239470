import { describe, expect, it } from 'vitest';
import { checkText, enforce, rulesFromAttributes } from '../../src/rules/index.js';

const rulesOf = (found: ReturnType<typeof checkText>) => found.map(({ rule, start, end }) => ({ rule, start, end }));

describe('word rules in a locale (Intl.Segmenter)', () => {
  const japanese = { avoid: ['会社', 'ログイン'], vocabulary: { サインイン: 'ログオン' }, maxWords: 5 };
  const text = '株式会社に連絡してください。サインインしてからログインしてください。';

  it('Japanese: whole words only, so "会社" is not inside "株式会社"; words counted by the segmenter, not by character', () => {
    const found = checkText(rulesFromAttributes({ ...japanese, locale: 'ja-JP' }), text);
    expect(rulesOf(found)).toEqual([
      { rule: 'maxWords', start: 0, end: text.length },
      { rule: 'vocabulary', start: 14, end: 19 },
      { rule: 'avoid', start: 23, end: 27 },
    ]);
    expect(found[0]!.message).toBe('has 17 words; the limit is 5');
    expect(enforce(rulesFromAttributes({ ...japanese, locale: 'ja' }), text).text).toBe('株式会社に連絡してください。ログオンしてからログインしてください。');
  });

  it('without a locale the same persona keeps matching by script, as before', () => {
    const found = checkText(rulesFromAttributes(japanese), text);
    expect(found.map(({ rule, message }) => [rule, message])).toEqual([
      ['maxWords', 'has 32 words; the limit is 5'],
      ['avoid', 'uses banned phrase "会社"'],
      ['vocabulary', 'uses "サインイン"; prefer "ログオン"'],
      ['avoid', 'uses banned phrase "ログイン"'],
    ]);
  });

  it('German: compounds are whole words ("Service" is not in "Kundenservice"), hyphenated words count once and match whole', () => {
    const rules = rulesFromAttributes({ locale: 'de-DE', avoid: ['Service'], vocabulary: { Kunden: 'Mitglieder', 'E-Mail': 'Nachricht' }, maxWords: 7 });
    const german = 'Der Kundenservice hilft allen Kunden per E-Mail. Service!';
    expect(checkText(rules, german).map(({ rule, message }) => [rule, message])).toEqual([
      ['maxWords', 'has 8 words; the limit is 7'],
      ['vocabulary', 'uses "Kunden"; prefer "Mitglieder"'],
      ['vocabulary', 'uses "E-Mail"; prefer "Nachricht"'],
      ['avoid', 'uses banned phrase "Service"'],
    ]);
    expect(enforce(rules, german).text).toBe('Der Kundenservice hilft allen Mitglieder per Nachricht. Service!');
  });

  it('phrases match across blanks and one line break, never a paragraph break; case is ignored; protected spans are skipped', () => {
    const rules = rulesFromAttributes({ locale: 'en-GB', avoid: ['circle back', 'C++'] });
    const found = (content: string) => checkText(rules, content).map(({ start, end }) => content.slice(start, end));
    expect(found('We will Circle  back.')).toEqual(['Circle  back']);
    expect(found('We will circle\nback.')).toEqual(['circle\nback']);
    expect(found('We will circle\n\nback.')).toEqual([]);
    expect(found('Use `circle back` or C++ or C.')).toEqual(['C++']);
  });

  it('a phrase of punctuation alone is still found', () => {
    const rules = rulesFromAttributes({ locale: 'de', avoid: ['!!!', 'super'] });
    const content = 'Super!!! Wirklich super.';
    expect(checkText(rules, content).map(({ start, end }) => content.slice(start, end))).toEqual(['Super', '!!!', 'super']);
  });
});
