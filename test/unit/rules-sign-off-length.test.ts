import { describe, expect, it } from 'vitest';

import { applyFixes, checkText, rulesFromAttributes } from '../../src/rules/index.js';

describe('signOff', () => {
  const rules = rulesFromAttributes({ signOff: 'Best,\nThe Acme Team' });

  it('appends the sign-off after a blank line when it is missing', () => {
    const input = 'Your invoice is attached.\n';
    expect(checkText(rules, input)).toEqual([
      {
        rule: 'signOff',
        severity: 'required',
        message: 'does not end with the sign-off "Best,\\nThe Acme Team"',
        start: input.length,
        end: input.length,
      },
    ]);
    expect(applyFixes(rules, input)).toEqual({
      text: 'Your invoice is attached.\n\nBest,\nThe Acme Team',
      fixed: { signOff: 1 },
    });
  });

  it('does not duplicate a sign-off written with different whitespace, case or final punctuation', () => {
    for (const ending of [
      'Best,\n  The Acme Team',
      'Best,\r\nThe Acme Team\n\n',
      'Best, The Acme Team.',
      'best,\nthe acme team',
    ]) {
      const input = `Your invoice is attached.\n\n${ending}`;
      expect(checkText(rules, input), ending).toEqual([]);
      expect(applyFixes(rules, input).text, ending).toBe(input);
    }
  });

  it('tolerates a sign-off configured with punctuation that the text leaves out', () => {
    const cheers = rulesFromAttributes({ signOff: 'Cheers!' });
    expect(applyFixes(cheers, 'See you soon.\n\nCheers').text).toBe('See you soon.\n\nCheers');
    expect(applyFixes(cheers, 'See you soon.').text).toBe('See you soon.\n\nCheers!');
  });

  it('does not count the end of a longer word as the sign-off', () => {
    const team = rulesFromAttributes({ signOff: 'Team' });
    expect(applyFixes(team, 'Welcome to the Dreamteam').text).toBe('Welcome to the Dreamteam\n\nTeam');
  });

  it('uses the sign-off alone for an empty text', () => {
    expect(applyFixes(rules, '  \n').text).toBe('Best,\nThe Acme Team');
  });

  it('never rewrites words inside the persona\'s own sign-off', () => {
    const branded = rulesFromAttributes({
      signOff: 'Your customers team',
      vocabulary: { customers: 'members' },
    });
    const once = applyFixes(branded, 'Our customers matter.').text;
    expect(once).toBe('Our members matter.\n\nYour customers team');
    expect(applyFixes(branded, once).text).toBe(once);
  });
});

describe('maxWords and maxSentences', () => {
  const rules = rulesFromAttributes({ maxWords: 12, maxSentences: 2 });

  it('reports the count and the limit over the whole text', () => {
    const input = 'Thanks for reaching out. We have fixed the bug in the export. It ships on Monday!';
    expect(checkText(rules, input)).toEqual([
      { rule: 'maxWords', severity: 'required', message: 'has 16 words; the limit is 12', start: 0, end: input.length },
      { rule: 'maxSentences', severity: 'required', message: 'has 3 sentences; the limit is 2', start: 0, end: input.length },
    ]);
    expect(applyFixes(rules, input)).toEqual({ text: input, fixed: {} });
  });

  it('accepts a text exactly at the limits', () => {
    expect(checkText(rules, 'Thanks for reaching out. We fixed the export bug; it ships Monday.')).toEqual([]);
  });

  it('does not end sentences at abbreviations, decimals, URLs or initials', () => {
    const input = 'See e.g. version 2.5 at https://acme.com/v2.5. Dr. Smith and J. Doe agree.';
    expect(checkText(rulesFromAttributes({ maxSentences: 1 }), input)).toHaveLength(1);
    expect(checkText(rulesFromAttributes({ maxSentences: 2 }), input)).toEqual([]);
  });

  it('counts list items and headings as sentences, without counting their markers as words', () => {
    const input = '## Next steps\n\n1. Export the data\n2. Import it\n- Check the totals';
    const limits = rulesFromAttributes({ maxSentences: 3, maxWords: 10 });
    expect(checkText(limits, input).map((v) => v.message)).toEqual(['has 4 sentences; the limit is 3']);
  });

  it('leaves code blocks and the sign-off out of the counts, and counts a URL as one word', () => {
    const limits = rulesFromAttributes({ maxWords: 5, maxSentences: 1, signOff: 'Kind regards,\nThe Acme Team' });
    const input = [
      'Run this, then open https://acme.com/a/b/c.',
      '```',
      'npm install acme. npm run build. npm test.',
      '```',
      '',
      'Kind regards,',
      'The Acme Team',
    ].join('\n');
    expect(checkText(limits, input)).toEqual([]);
  });

  it('counts Chinese and Japanese characters as words and splits sentences at 。！？', () => {
    const limits = rulesFromAttributes({ maxWords: 5, maxSentences: 1 });
    expect(checkText(limits, '谢谢你。我们明天见！').map((v) => v.message)).toEqual([
      'has 8 words; the limit is 5',
      'has 2 sentences; the limit is 1',
    ]);
  });

  it('counts accented and Cyrillic words like any other', () => {
    const limits = rulesFromAttributes({ maxWords: 3 });
    expect(checkText(limits, 'Ça marche très bien.')).toHaveLength(1);
    expect(checkText(limits, 'Всё работает отлично.')).toEqual([]);
  });
});
