/** The `preserve` rule: which items of a text a rewrite must keep, and how their loss is reported. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  checkText,
  enforce,
  findPreservedItems,
  needsModelRepair,
  preservedOriginal,
  repairInstructions,
  rulesFromAttributes,
  summarizeViolations,
} from '../../src/rules/index.js';

/** Each item as `kind: written`, in text order. */
const items = (text: string) => findPreservedItems(text).map((item) => `${item.kind}: ${text.slice(item.start, item.end)}`);
const rules = rulesFromAttributes({});
/** The items of `original` that `answer` lost, as written in `original`. */
const lost = (original: string, answer: string) =>
  checkText(rules, answer, preservedOriginal(original)).map((violation) => original.slice(violation.start, violation.end));

describe('protected items, per kind, in realistic texts', () => {
  it('a support reply: amounts, order and card numbers, a range, an address and a link', () => {
    const reply = [
      'Hi Maria,',
      '',
      "Thanks for reaching out. I've issued a refund of $1,250.00 for order #A-20931; you'll see it on the card",
      'ending 4417 within 5–7 business days. Questions? Write to support@acme.com or see https://help.acme.com/refunds.',
      '',
      'Best,',
      'Sam',
    ].join('\n');
    expect(items(reply)).toEqual([
      'number: 1,250.00',
      'number: 20931',
      'number: 4417',
      'number: 5',
      'number: 7',
      'email: support@acme.com',
      'url: https://help.acme.com/refunds',
    ]);
  });

  it('release notes in markdown: a version, a date, code spans, a fenced block, an issue number and a link', () => {
    const notes = [
      '## v2.4.0 (2026-11-20)',
      '',
      '- Fixed a crash when `maxWords` was 0 (#1289).',
      '- `npm install @acme/sdk@2.4.0` now works on Node 20.19 and later.',
      '- Full changelog: https://docs.acme.dev/changelog#v2.4.0.',
      '',
      '```sh',
      'acme migrate --to 2.4.0',
      '```',
    ].join('\n');
    expect(items(notes)).toEqual([
      'number: 2.4.0',
      'number: 2026',
      'number: 11',
      'number: 20',
      'code: `maxWords`',
      'number: 0',
      'number: 1289',
      'code: `npm install @acme/sdk@2.4.0`',
      'number: 20.19',
      'url: https://docs.acme.dev/changelog#v2.4.0',
      'code-block: ```sh\nacme migrate --to 2.4.0\n```',
    ]);
  });

  it('a notification template: every placeholder syntax, and the number beside them', () => {
    const template =
      'Hi {{ first_name }}, order {{order_id}} ships on %s to ${city}. {{{signature}}} ' +
      'Reply STOP to 55123 (%(count)d left, %1$s, {0}, {amount:.2f}, {}). [[unsubscribe_link]]';
    expect(items(template)).toEqual([
      'placeholder: {{ first_name }}',
      'placeholder: {{order_id}}',
      'placeholder: %s',
      'placeholder: ${city}',
      'placeholder: {{{signature}}}',
      'number: 55123',
      'placeholder: %(count)d',
      'placeholder: %1$s',
      'placeholder: {0}',
      'placeholder: {amount:.2f}',
      'placeholder: {}',
      'placeholder: [[unsubscribe_link]]',
    ]);
  });

  it('non-English text: European number formats, dates, full-width digits and text running into addresses', () => {
    expect(items('Ihre Bestellung Nr. 48213 über 1.250,00 € kommt am 24.11.2026. Fragen: kundenservice@beispiel.de')).toEqual([
      'number: 48213',
      'number: 1.250,00',
      'number: 24.11.2026',
      'email: kundenservice@beispiel.de',
    ]);
    expect(items('Le total est de 1\u202F250,00 € (TVA 20 %).')).toEqual(['number: 1\u202F250,00', 'number: 20']);
    expect(items('ご注文番号１２３４５の合計は1,250円です。詳細はhttps://example.jp/orders/12345をご覧ください。')).toEqual([
      'number: １２３４５',
      'number: 1,250',
      'url: https://example.jp/orders/12345',
    ]);
    expect(items('2026年11月23日に発送。お問い合わせはsupport@acme.jpまで、またはacme.jp/helpへ。')).toEqual([
      'number: 2026',
      'number: 11',
      'number: 23',
      'email: support@acme.jp',
      'url: acme.jp/help',
    ]);
    expect(items('الطلب رقم ١٢٣٤ بقيمة 99.50 دولار')).toEqual(['number: ١٢٣٤', 'number: 99.50']);
  });
});

describe('near misses', () => {
  it('a version string is one item, compared as written', () => {
    expect(items('Upgrade to v2.3.1 (not 2.3).')).toEqual(['number: 2.3.1', 'number: 2.3']);
    expect(lost('Upgrade to v2.3.1 today.', 'Upgrade to version 2.3.1 today.')).toEqual([]);
    expect(lost('Upgrade to v2.3.1 today.', 'Upgrade to v2.3 today.')).toEqual(['2.3.1']);
    expect(lost('Requires Node 20.10.', 'Requires Node 20.1.')).toEqual(['20.10']);
  });

  it('a price keeps its digits, not its currency sign', () => {
    expect(items('Now $49.99 (was €59,00), or £5 a month.')).toEqual(['number: 49.99', 'number: 59,00', 'number: 5']);
    expect(lost('A refund of $1,250.00 is on its way.', 'We are refunding 1250.00 dollars.')).toEqual([]);
    expect(lost('A refund of $1,250.00 is on its way.', 'We are refunding $1,205.00.')).toEqual(['1,250.00']);
  });

  it('a placeholder inside a code span is part of the code, counted once', () => {
    expect(items('Use `Hello {{name}}` as the greeting.')).toEqual(['code: `Hello {{name}}`']);
    expect(lost('Use `Hello {{name}}` as the greeting.', 'Greet with `Hello {{name}}`.')).toEqual([]);
    expect(lost('Use `Hello {{name}}` as the greeting.', 'Greet with Hello {{name}}.')).toEqual(['`Hello {{name}}`']);
  });

  it('a URL ending a sentence does not take the period, a bracket or a comma', () => {
    expect(items('See https://acme.com/docs/setup. Or (https://acme.com/faq), then https://en.wikipedia.org/wiki/Foo_(bar).')).toEqual([
      'url: https://acme.com/docs/setup',
      'url: https://acme.com/faq',
      'url: https://en.wikipedia.org/wiki/Foo_(bar)',
    ]);
    expect(lost('See https://acme.com/docs/setup.', 'Details: https://acme.com/docs/setup')).toEqual([]);
  });

  it('percentages, names with digits, hashes and list numbering are not placeholders or numbers', () => {
    expect(items('50% off, 100%free, 100%% sure, %%s')).toEqual(['number: 50', 'number: 100', 'number: 100']);
    expect(items('H2O, ES2022, i18n, commit 3f2a1bc, 5GB at 10am on the 1st')).toEqual(['number: 5', 'number: 10', 'number: 1']);
    expect(items('1. Open the app\n2) Sign in\n10. Done in 3 steps')).toEqual(['number: 3']);
    expect(items('Prose {"a": "b"} and {color: red} is not a template.')).toEqual([]);
  });

  it('a URL holding a placeholder is one item', () => {
    expect(items('Track it at https://acme.com/o/{{ order_id }}/status now')).toEqual(['url: https://acme.com/o/{{ order_id }}/status']);
  });
});

describe('what counts as kept', () => {
  it('numbers by value as written: grouping and the decimal mark style do not matter, digits and decimals do', () => {
    expect(lost('Total: 1,250.00', 'Total 1250.00')).toEqual([]);
    expect(lost('Total: 1,250.00', 'Summe: 1.250,00')).toEqual([]);
    expect(lost('Total: 1,250', 'Total: 1,205')).toEqual(['1,250']);
    expect(lost('Total: 5.00', 'Total: 5')).toEqual(['5.00']);
    expect(lost('Order 0042', 'Order 42')).toEqual(['0042']);
    expect(lost('注文番号１２３４５', 'Order 12345')).toEqual([]);
    expect(lost('Population 1,00,000', 'Population 100000')).toEqual([]);
  });

  it('each item as many times as in the original; the later occurrences are the ones reported', () => {
    const original = 'Hi {{name}}! Yes, {{name}}, order 7 and order 7.';
    expect(lost(original, 'Hello {{name}}, order 7 and order 7.')).toEqual(['{{name}}']);
    const violations = checkText(rules, 'Hello, order 7.', preservedOriginal(original));
    expect(violations.map(({ start }) => original.slice(start, start + 8))).toEqual(['{{name}}', '{{name}}', '7.']);
    expect(violations[0]!.start).toBe(3);
    expect(violations[2]!.start).toBe(original.lastIndexOf('7'));
    expect(violations[0]!.message).toBe('is missing the placeholder "{{name}}" of the original (2 times in the original, 0 here)');
    expect(violations[2]!.message).toBe('is missing the number "7" of the original (2 times in the original, 1 here)');
  });

  it('a number, link or placeholder the model set in code formatting is still there', () => {
    expect(lost('Set PORT to 8080 and open https://acme.dev.', 'Set `PORT` to `8080` and open `https://acme.dev`.')).toEqual([]);
  });

  it('code verbatim: the fence and info string may change, the code may not', () => {
    const original = 'Run:\n\n```js\nconst total = 1250;\n```';
    expect(lost(original, 'Run this:\n\n~~~javascript\nconst total = 1250;\n~~~')).toEqual([]);
    expect(lost(original, 'Run this:\n\n```js\nconst total = 1250; // the sum\n```')).toEqual(['```js\nconst total = 1250;\n```']);
    expect(lost('Use `x = 1`.', 'Use `x=1`.')).toEqual(['`x = 1`']);
  });

  it('placeholders verbatim; links without their scheme or trailing slash; e-mail addresses ignoring case', () => {
    expect(lost('Hi {{ name }}', 'Hello {{name}}')).toEqual(['{{ name }}']);
    expect(lost('Visit acme.com/help', 'Visit https://acme.com/help/')).toEqual([]);
    expect(lost('Mail Help@Acme.com', 'Mail help@acme.com')).toEqual([]);
    expect(lost('Mail help@acme.com', 'Mail help@acme.co')).toEqual(['help@acme.com']);
  });
});

describe('the rule in the engine', () => {
  it('is on by default, off with enforce.preserve false, and needs the original to check anything', () => {
    const original = preservedOriginal('Order 4417 ships {{date}}.');
    expect(rulesFromAttributes({ tone: 'warm' }).preserve).toBe(true);
    expect(checkText(rulesFromAttributes({ enforce: { preserve: false } }), 'It ships soon.', original)).toEqual([]);
    expect(checkText(rules, 'It ships soon.')).toEqual([]);
    const result = enforce(rules, 'It ships soon.', original);
    expect(summarizeViolations(result.remaining)).toBe('preserve=2');
    expect(needsModelRepair(result.remaining)).toBe(true);
  });

  it('lists the text rules first (offsets in the text), then the lost items (offsets in the original)', () => {
    const persona = rulesFromAttributes({ avoid: ['synergy'] });
    const violations = checkText(persona, 'Pure synergy.', preservedOriginal('Order 4417: pure synergy.'));
    expect(violations).toEqual([
      { rule: 'avoid', severity: 'required', message: 'uses banned phrase "synergy"', start: 5, end: 12 },
      { rule: 'preserve', severity: 'required', message: 'is missing the number "4417" of the original', start: 6, end: 10 },
    ]);
  });

  it('the repair instruction names each lost item once, as written, with the words around it in the original', () => {
    const original = preservedOriginal(
      'Hi {{first_name}}, your order A-1042 of $1,250.00 has shipped and arrives on {{delivery_date}}. Hi again {{first_name}}.',
    );
    const answer = 'Hello! Your order A-1042 of $1,250.00 is on its way.';
    const remaining = checkText(rules, answer, original);
    expect(summarizeViolations(remaining)).toBe('preserve=3');
    expect(repairInstructions(remaining, answer, original)).toBe(
      [
        "Revise the text to follow the persona's rules. Keep its meaning, language and formatting; change only what this list requires:",
        '- Put back what the text lost from the original, exactly as written there: ' +
          'the placeholder "{{first_name}}" 2 times (in "Hi {{first_name}}, your order A-1042 of…"); ' +
          'the placeholder "{{delivery_date}}" (in "…has shipped and arrives on {{delivery_date}}. Hi again {{first_name}}.").',
      ].join('\n'),
    );
  });

  it('quotes the words around an item within its paragraph, and names at most 30 items', () => {
    const paragraphs = preservedOriginal('Intro line.\n\nCall 555-0100 today\n\nOutro.');
    expect(repairInstructions(checkText(rules, 'Call us.', paragraphs), 'Call us.', paragraphs)).toContain(
      'the number "555" (in "Call 555-0100 today"); the number "0100" (in "Call 555-0100 today").',
    );
    const many = preservedOriginal(Array.from({ length: 40 }, (_, index) => `item ${index + 100}`).join(', '));
    const line = repairInstructions(checkText(rules, 'Nothing.', many), 'Nothing.', many).split('\n')[1]!;
    expect(line.match(/the number/g)).toHaveLength(30);
    expect(line).toMatch(/; and 10 more\.$/);
  });

  it('a long code block is named by its first lines', () => {
    const block = ['```python', `print(${'"x", '.repeat(40)})`, 'done()', '```'].join('\n');
    const remaining = checkText(rules, 'No code.', preservedOriginal(`Try:\n${block}`));
    expect(remaining[0]!.message).toMatch(/^is missing the code block "```python\\nprint\(.{60,}…" of the original$/);
  });

  it('fixes never rewrite a template placeholder', () => {
    const persona = rulesFromAttributes({ vocabulary: { customers: 'members' }, casing: ['GitHub'] });
    expect(enforce(persona, 'Dear customers of {{customers}} and {github}: %(customers)s').text).toBe(
      'Dear members of {{customers}} and {github}: %(customers)s',
    );
  });
});

describe('properties', () => {
  const pieces = [
    'order ', '48213', '1,250.00', '1.250,00', 'v2.3.1', ' ', '\n', '\n\n', '. ', ', ', '{{name}}', '{{ x }}', '{id}', '${a}', '%s', '%(n)d',
    '[[w]]', '`', '```\n', 'https://acme.com/a', 'www.acme.io', 'help@acme.com', 'acme.dev/x', '合計', '１２', '50%', '$', '€', '(', ')', 'v', 'a1b2',
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(''));

  it('a text keeps every item of its own', () => {
    fc.assert(
      fc.property(text, (a) => {
        expect(checkText(rules, a, preservedOriginal(a))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('items never overlap, and each one is a non-empty span of the text', () => {
    fc.assert(
      fc.property(text, (a) => {
        let end = 0;
        for (const item of findPreservedItems(a)) {
          expect(item.start).toBeGreaterThanOrEqual(end);
          expect(item.end).toBeGreaterThan(item.start);
          expect(item.end).toBeLessThanOrEqual(a.length);
          end = item.end;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('cost on hostile input', () => {
  const N = 100_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(N / unit.length)).slice(0, N);
  let ladder = '';
  for (let run = 1; ladder.length < N; run++) ladder += `${'`'.repeat(run)}a`;
  let seed = 7;
  const tricky = ['1', ',', '.', '{', '}', '$', '%', '(', ')', '[', ']', '`', '\n', ' ', 'a', 'v', '@', '/', ':', '-', '~', '合', '\u202F', "'", 's', 'w'];
  const random = Array.from({ length: N }, () => tricky[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % tricky.length]).join('');

  // Each is a shape that makes a careless pattern backtrack: runs of separators between
  // digits, unclosed braces and backticks, almost-addresses, digits glued to letters.
  const hostile: Record<string, string> = {
    'digits and commas': fill('1,'),
    'digits and dots': fill('1.'),
    'digits and no-break spaces': fill('1\u202F'),
    'digits glued to letters': fill('1a'),
    'version prefixes': fill('v1'),
    'unclosed double braces': fill('{{'),
    'unclosed single braces': fill('{a'),
    'unclosed ${': fill('${'),
    'unclosed [[': fill('[['),
    'percent signs': fill('%'),
    'printf prefixes': fill('%1$'),
    'backtick runs of growing length': ladder.slice(0, N),
    'fences': fill('```\n'),
    'almost host names': fill('a.'),
    'almost e-mail addresses': fill('a@a.'),
    'schemes': fill('http://'),
    'letters': fill('a'),
    'digits between CJK letters': fill('合1'),
    'a random mix of all of it': random,
  };

  it.each(Object.entries(hostile))('stays linear on 100,000 characters of %s', (_, text) => {
    const started = performance.now();
    const original = preservedOriginal(text);
    checkText(rules, text.slice(0, N / 2), original);
    // Linear work takes well under half a second here; a quadratic pattern takes minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
