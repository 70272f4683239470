import { describe, expect, it } from 'vitest';

import { applyFixes, checkText, rulesFromAttributes } from '../../src/rules/index.js';

const spansOf = (text: string, violations: { start: number; end: number }[]) =>
  violations.map((violation) => text.slice(violation.start, violation.end));

describe('vocabulary', () => {
  const rules = rulesFromAttributes({
    vocabulary: { customers: 'members', 'help desk': 'support team', 'sign up': 'join' },
  });

  it('replaces a preferred term as a whole word', () => {
    const { text, fixed } = applyFixes(rules, 'We thank our customers for their patience.');
    expect(text).toBe('We thank our members for their patience.');
    expect(fixed).toEqual({ vocabulary: 1 });
  });

  it('keeps a capital at the start of a sentence and all caps in a heading', () => {
    const { text } = applyFixes(rules, 'Customers come first.\n\n## WHAT CUSTOMERS SAY\n\nAsk customers.');
    expect(text).toBe('Members come first.\n\n## WHAT MEMBERS SAY\n\nAsk members.');
  });

  it('capitalises each case independently, including multi-word phrases', () => {
    const { text } = applyFixes(rules, 'Help desk hours: call the help desk or the HELP DESK.');
    expect(text).toBe('Support team hours: call the support team or the SUPPORT TEAM.');
  });

  it('does not match inside a longer word, and does not stem', () => {
    const input = 'Customership matters; each customer counts; ourcustomers is a typo.';
    expect(applyFixes(rules, input).text).toBe(input);
    expect(checkText(rules, input)).toEqual([]);
  });

  it('matches a phrase across a single line break, but not across a paragraph break', () => {
    expect(applyFixes(rules, 'Please sign\nup today.').text).toBe('Please join today.');
    const paragraphs = 'You can sign\n\nup sheets are here.';
    expect(applyFixes(rules, paragraphs).text).toBe(paragraphs);
  });

  it('matches next to punctuation, quotes, possessives and markdown emphasis', () => {
    const { text } = applyFixes(rules, '"Customers," said **customers**\' _customers_ (customers).');
    expect(text).toBe('"Members," said **members**\' _members_ (members).');
  });

  it('leaves identifiers such as customers_table alone', () => {
    expect(applyFixes(rules, 'Export customers_table now.').text).toBe('Export customers_table now.');
  });

  it('reports the term and its replacement with exact offsets', () => {
    const input = 'Dear customers, our Customers say thanks.';
    const violations = checkText(rules, input);
    expect(violations.map((v) => v.message)).toEqual([
      'uses "customers"; prefer "members"',
      'uses "Customers"; prefer "Members"',
    ]);
    expect(spansOf(input, violations)).toEqual(['customers', 'Customers']);
  });

  it('resolves chains of preferences so that a second run changes nothing', () => {
    const chained = rulesFromAttributes({ vocabulary: { clients: 'customers', customers: 'members' } });
    expect(applyFixes(chained, 'Clients and customers.').text).toBe('Members and members.');
  });

  it('prefers the longest phrase that starts at the same place', () => {
    const overlapping = rulesFromAttributes({
      vocabulary: { customer: 'member', 'customer service': 'member care' },
    });
    expect(applyFixes(overlapping, 'Customer service helps every customer.').text).toBe(
      'Member care helps every member.',
    );
  });
});

describe('casing', () => {
  const rules = rulesFromAttributes({ casing: ['Acme Cloud', 'GitHub', 'iPhone'] });

  it('respells brand names written in any other case', () => {
    const { text, fixed } = applyFixes(rules, 'Deploy ACME cloud from github to your IPHONE.');
    expect(text).toBe('Deploy Acme Cloud from GitHub to your iPhone.');
    expect(fixed).toEqual({ casing: 3 });
  });

  it('leaves the canonical spelling and longer words alone', () => {
    const input = 'Acme Cloud and GitHub, not githubbers or Acme Cloudy.';
    expect(checkText(rules, input)).toEqual([]);
    expect(applyFixes(rules, input).text).toBe(input);
  });

  it('handles brand names with punctuation, which are not mistaken for host names', () => {
    const punctuated = rulesFromAttributes({ casing: ['Node.js', 'C#', 'Wi-Fi'] });
    expect(applyFixes(punctuated, 'Use node.js, c# and WIFI or wi-fi.').text).toBe('Use Node.js, C# and WIFI or Wi-Fi.');
  });

  it('keeps the line break inside a wrapped brand name', () => {
    expect(applyFixes(rules, 'Try acme\ncloud today.').text).toBe('Try Acme\nCloud today.');
  });

  it('reports the misspelling and the canonical form', () => {
    const input = 'Push it to Github.';
    const violations = checkText(rules, input);
    expect(violations).toEqual([
      { rule: 'casing', severity: 'required', message: 'writes "Github"; the spelling is "GitHub"', start: 11, end: 17 },
    ]);
    expect(spansOf(input, violations)).toEqual(['Github']);
  });
});

describe('avoid', () => {
  const rules = rulesFromAttributes({ avoid: ['synergy', 'circle back', 'ass'] });

  it('flags banned words and phrases with their positions, without changing the text', () => {
    const input = 'Synergy is key. Let us circle\nback next week.';
    const violations = checkText(rules, input);
    expect(violations.map((v) => v.message)).toEqual([
      'uses banned phrase "synergy"',
      'uses banned phrase "circle back"',
    ]);
    expect(spansOf(input, violations)).toEqual(['Synergy', 'circle\nback']);
    expect(applyFixes(rules, input)).toEqual({ text: input, fixed: {} });
  });

  it('does not flag a banned word inside a longer word', () => {
    expect(checkText(rules, 'A classic assessment of our passion: embarrassing, yet classy.')).toEqual([]);
  });

  it('accepts a single string as well as a list', () => {
    const single = rulesFromAttributes({ avoid: 'leverage' });
    expect(checkText(single, 'We leverage data.').map((v) => v.rule)).toEqual(['avoid']);
  });
});

describe('protected regions', () => {
  const rules = rulesFromAttributes({
    vocabulary: { customers: 'members' },
    casing: ['GitHub'],
    avoid: ['synergy'],
  });

  it('leaves URLs, e-mail addresses and bare host names untouched', () => {
    const input = [
      'Customers can read https://acme.com/customers?ref=github#synergy or www.acme.com/customers.',
      'Mail customers@acme.com, visit customers.acme.io or acme.dev/customers/github.',
    ].join('\n');
    const expected = [
      'Members can read https://acme.com/customers?ref=github#synergy or www.acme.com/customers.',
      'Mail customers@acme.com, visit customers.acme.io or acme.dev/customers/github.',
    ].join('\n');
    expect(applyFixes(rules, input).text).toBe(expected);
    expect(checkText(rules, input).map((v) => v.rule)).toEqual(['vocabulary']);
  });

  it('ends an address where text of a script without spaces resumes', () => {
    const input = '詳細はhttps://acme.jp/help。customers も acme.jp/faq、github も。';
    expect(applyFixes(rules, input).text).toBe('詳細はhttps://acme.jp/help。members も acme.jp/faq、GitHub も。');
  });

  it('leaves template placeholders untouched', () => {
    const input = 'Customers of {{customers}}, {github} and ${customers.count}: [[customers]] %(customers)s';
    expect(applyFixes(rules, input).text).toBe('Members of {{customers}}, {github} and ${customers.count}: [[customers]] %(customers)s');
  });

  it('leaves inline code and fenced code blocks untouched', () => {
    const input = [
      'Run `customers --sync github` for customers.',
      '',
      '```bash',
      'curl https://api.acme.com/customers # synergy with github',
      'echo customers',
      '```',
      '',
      'Then tell ``the `customers` table`` customers.',
    ].join('\n');
    const expected = input.replace('for customers.', 'for members.').replace('table`` customers.', 'table`` members.');
    expect(applyFixes(rules, input).text).toBe(expected);
    expect(checkText(rules, input).filter((v) => v.rule !== 'vocabulary')).toEqual([]);
  });

  it('treats an unclosed fence as code to the end of the text', () => {
    const input = 'Customers:\n```\ncustomers\ngithub';
    expect(applyFixes(rules, input).text).toBe('Members:\n```\ncustomers\ngithub');
  });

  it('fixes the text of a markdown link but not its target', () => {
    const input = 'See [our customers on github](https://github.com/acme/customers "customers") and ![customers](img/customers.png).';
    expect(applyFixes(rules, input).text).toBe(
      'See [our members on GitHub](https://github.com/acme/customers "customers") and ![members](img/customers.png).',
    );
  });

  it('keeps sentence punctuation after a URL outside the URL', () => {
    const input = 'Read https://acme.com/docs. Customers love it (see https://acme.com/faq).';
    expect(applyFixes(rules, input).text).toBe(
      'Read https://acme.com/docs. Members love it (see https://acme.com/faq).',
    );
  });
});

describe('non-English text', () => {
  it('matches accented and Cyrillic words as whole words, case-insensitively', () => {
    const rules = rulesFromAttributes({
      vocabulary: { kunden: 'Mitglieder', 'clientèle': 'communauté', 'клиенты': 'участники' },
      avoid: ['Straße'],
    });
    const input = 'Unsere Kunden lieben es. Die Kundenliste wächst. La clientèle est là. Клиенты довольны.';
    expect(applyFixes(rules, input).text).toBe(
      'Unsere Mitglieder lieben es. Die Kundenliste wächst. La communauté est là. Участники довольны.',
    );
    // "STRASSE" is another spelling, not another case: JavaScript's case folding keeps ß ≠ SS.
    const banned = 'Die Hauptstraße und die STRASSE. Die Straße!';
    const violations = checkText(rules, banned);
    expect(violations.map((v) => v.start)).toEqual([banned.lastIndexOf('Straße')]);
    expect(spansOf(banned, violations)).toEqual(['Straße']);
  });

  it('does not treat accented letters as word boundaries', () => {
    const rules = rulesFromAttributes({ avoid: ['caf', 'ete'] });
    expect(checkText(rules, 'Un café en été, déjà fêté.')).toEqual([]);
  });

  it('matches terms in scripts written without spaces', () => {
    const rules = rulesFromAttributes({ vocabulary: { 客户: '会员' } });
    expect(applyFixes(rules, '感谢我们的客户支持。').text).toBe('感谢我们的会员支持。');
  });
});
