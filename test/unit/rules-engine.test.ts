import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  applyFixes,
  checkText,
  enforce,
  hasRules,
  needsModelRepair,
  repairInstructions,
  rulesFromAttributes,
  summarizeViolations,
  type RuleViolation,
} from '../../src/rules/index.js';

const acme = {
  vocabulary: { customers: 'members', 'help desk': 'support team' },
  casing: ['Acme Cloud', 'GitHub'],
  avoid: ['synergy', 'circle back', 'leverage'],
  emoji: 'none',
  signOff: 'Best,\nThe Acme Team',
  maxWords: 60,
  maxSentences: 5,
};

const modelAnswer = [
  'Hi there 👋🏽! Customers on ACME cloud can now sync with github 🚀.',
  'We will circle back once the help desk has the details; see https://acme.com/customers or run `acme sync --customers`.',
  '',
  '```sh',
  'acme sync --synergy 🎉',
  '```',
].join('\n');

describe('rulesFromAttributes', () => {
  it('parses every rule', () => {
    expect(rulesFromAttributes(acme)).toEqual({
      vocabulary: [
        { from: 'customers', to: 'members' },
        { from: 'help desk', to: 'support team' },
      ],
      casing: ['Acme Cloud', 'GitHub'],
      avoid: ['synergy', 'circle back', 'leverage'],
      stripEmoji: true,
      signOff: 'Best,\nThe Acme Team',
      maxWords: 60,
      maxSentences: 5,
      locale: null,
      preserve: true,
      terms: [],
      recommended: [],
    });
  });

  it('ignores a value of none of its shapes as a whole, as the prompt does, instead of throwing', () => {
    const odd = rulesFromAttributes({
      vocabulary: ['customers', 'members'],
      casing: [42, null, '  GitHub  ', '', 'github'],
      avoid: { synergy: true },
      emoji: 'sparingly',
      signOff: ['Best'],
      maxWords: 0,
      maxSentences: '5',
      enforce: 'no',
    });
    const onlyPreserve = {
      vocabulary: [],
      casing: [],
      avoid: [],
      stripEmoji: false,
      signOff: null,
      maxWords: null,
      maxSentences: null,
      locale: null,
      preserve: true,
      terms: [],
      recommended: [],
    };
    expect(odd).toEqual(onlyPreserve);
    for (const attributes of [null, undefined, [], 'x', 3]) {
      expect(rulesFromAttributes(attributes as unknown as Record<string, unknown>)).toEqual(onlyPreserve);
    }
    for (const attributes of [{ vocabulary: { a: 1, b: null } }, { maxWords: 2.5 }]) {
      const rules = rulesFromAttributes({ ...attributes, enforce: { preserve: false } });
      expect(hasRules(rules)).toBe(false);
    }
  });

  it('has only the preserve rule for a persona that only describes tone, and none once it is turned off', () => {
    expect(rulesFromAttributes({ tone: ['warm'], audience: 'developers' })).toMatchObject({ preserve: true, avoid: [], maxWords: null });
    expect(hasRules(rulesFromAttributes({ tone: ['warm'], enforce: { preserve: false } }))).toBe(false);
    expect(hasRules(rulesFromAttributes({ maxWords: 100, enforce: { preserve: false } }))).toBe(true);
  });

  it('disables every rule with a top-level enforce: false', () => {
    const rules = rulesFromAttributes({ ...acme, enforce: false });
    expect(hasRules(rules)).toBe(false);
    expect(enforce(rules, modelAnswer)).toEqual({ text: modelAnswer, fixed: {}, remaining: [] });
  });

  it('disables single rules with an enforce map keyed by rule id', () => {
    const rules = rulesFromAttributes({ ...acme, enforce: { avoid: false, emoji: false, maxWords: true } });
    expect(rules.avoid).toEqual([]);
    expect(rules.stripEmoji).toBe(false);
    expect(rules.maxWords).toBe(60);
    expect(rules.vocabulary).toHaveLength(2);
  });
});

describe('enforce', () => {
  const rules = rulesFromAttributes(acme);

  it('fixes what it can and reports what only the model can fix', () => {
    const result = enforce(rules, modelAnswer);
    expect(result.text).toBe(
      [
        'Hi there! Members on Acme Cloud can now sync with GitHub.',
        'We will circle back once the support team has the details; see https://acme.com/customers or run `acme sync --customers`.',
        '',
        '```sh',
        'acme sync --synergy 🎉',
        '```',
        '',
        'Best,',
        'The Acme Team',
      ].join('\n'),
    );
    expect(result.fixed).toEqual({ emoji: 2, vocabulary: 2, casing: 2, signOff: 1 });
    expect(result.remaining.map((v) => [v.rule, result.text.slice(v.start, v.end)])).toEqual([
      ['avoid', 'circle back'],
    ]);
    expect(needsModelRepair(result.remaining)).toBe(true);
    expect(summarizeViolations(result.remaining)).toBe('avoid=1');
  });

  it('is idempotent', () => {
    const once = enforce(rules, modelAnswer);
    const twice = enforce(rules, once.text);
    expect(twice.text).toBe(once.text);
    expect(twice.fixed).toEqual({});
    expect(twice.remaining).toEqual(once.remaining);
  });

  it('is idempotent, leaves nothing fixable and reports exact offsets, on arbitrary text', () => {
    const pieces = fc.constantFrom(
      'customers', 'Customers', 'CUSTOMERS', 'help', 'desk', 'help desk', 'acme', 'cloud', 'GITHUB',
      'synergy', 'circle', 'back', ' ', '  ', '\n', '\n\n', '.', ',', '!', '`', '```', '(', ')', '[x](', '_',
      'https://acme.com/customers', 'a@b.io', 'x', 'Kunden', '客户', 'ക്', '©', '™', '#',
      '🎉', '👍🏽', '👨‍👩‍👧', '🇩🇪', '🏴', '1️⃣', '🏽', '\uFE0F', '\uFE0E', '\u200D', '\u20E3', '\u{E0067}', '\u{E007F}',
      'Best,', 'The Acme Team', 'Best,\nThe Acme Team',
    );
    const modelOnly = new Set(['avoid', 'maxWords', 'maxSentences']);
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        for (const violation of checkText(rules, text)) {
          const span = text.slice(violation.start, violation.end).replace(/\s+/g, ' ');
          if (violation.rule === 'avoid') expect(violation.message.toLowerCase()).toContain(`"${span.toLowerCase()}"`);
          if (violation.rule === 'casing' || violation.rule === 'emoji') expect(violation.message).toContain(`"${span}"`);
          if (violation.rule === 'vocabulary') expect(violation.message).toMatch(new RegExp(`^uses "${span}"`));
        }
        const once = enforce(rules, text);
        expect(once.remaining.filter((violation) => !modelOnly.has(violation.rule))).toEqual([]);
        expect(enforce(rules, once.text).text).toBe(once.text);
      }),
      { numRuns: 1000 },
    );
  });

  it('never changes text inside code or URLs', () => {
    const body = fc.constantFrom('customers', '🎉', 'github', ' ', 'synergy', 'x');
    fc.assert(
      fc.property(fc.array(body, { maxLength: 10 }), (parts) => {
        const code = parts.join('');
        if (code.includes('`') || code.trim() === '') return;
        const text = `Try \`${code}\` and\n\`\`\`\n${code}\n\`\`\`\n`;
        const fixed = enforce(rules, text).text;
        expect(fixed).toContain(`\`${code}\``);
        expect(fixed).toContain(`\`\`\`\n${code}\n\`\`\``);
      }),
    );
  });

  it('stays linear on pathological input', () => {
    const texts = [
      'a.'.repeat(50_000),
      '`a '.repeat(20_000),
      `customers${' '.repeat(50_000)}x`,
      'x'.repeat(100_000),
      'a@'.repeat(50_000),
      '](('.repeat(20_000),
      '👍🏽\u200D'.repeat(20_000),
      '```\n'.repeat(20_000),
      'e.g. '.repeat(20_000),
      'Our customers love ACME cloud 🎉 on https://acme.com/x. See `code` and synergy! '.repeat(600),
    ];
    const started = performance.now();
    for (const text of texts) enforce(rules, text);
    // Each takes well under 100 ms; a quadratic scan would take tens of seconds.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('returns violations sorted by position with offsets that slice the offending span', () => {
    const text = 'Our customers love ACME cloud 🎉 and synergy.';
    const violations = checkText(rules, text);
    expect(violations.map((v) => [v.rule, text.slice(v.start, v.end)])).toEqual([
      ['vocabulary', 'customers'],
      ['casing', 'ACME cloud'],
      ['emoji', '🎉'],
      ['avoid', 'synergy'],
      ['signOff', ''],
    ]);
  });
});

describe('needsModelRepair', () => {
  const violation = (rule: RuleViolation['rule']): RuleViolation => ({ rule, message: '', start: 0, end: 0 });

  it('is true only for rules a mechanical fix cannot satisfy', () => {
    expect(needsModelRepair([violation('vocabulary'), violation('emoji'), violation('signOff')])).toBe(false);
    expect(needsModelRepair([violation('casing'), violation('maxSentences')])).toBe(true);
    expect(needsModelRepair([violation('maxWords')])).toBe(true);
    expect(needsModelRepair([])).toBe(false);
  });
});

describe('summarizeViolations', () => {
  it('counts violations per rule in a stable order', () => {
    const rules = rulesFromAttributes({ ...acme, maxWords: 3 });
    const text = 'Synergy and leverage, dear customers 🎉.';
    expect(summarizeViolations(checkText(rules, text))).toBe(
      'vocabulary=1,avoid=2,emoji=1,signOff=1,maxWords=1',
    );
    expect(summarizeViolations([])).toBe('');
  });
});

describe('repairInstructions', () => {
  it('quotes the banned phrases as found and states the limits', () => {
    const rules = rulesFromAttributes({ avoid: ['synergy', 'circle back'], maxWords: 8, maxSentences: 1 });
    const text = 'Synergy matters. We will circle\nback on the synergy question next week.';
    const instructions = repairInstructions(checkText(rules, text), text);
    expect(instructions).toBe(
      [
        "Revise the text to follow the persona's rules. Keep its meaning, language and formatting; change only what this list requires:",
        '- Remove these banned phrases by rephrasing: "Synergy", "circle back".',
        '- The text has 12 words; the limit is 8: shorten it.',
        '- The text has 2 sentences; the limit is 1: shorten it.',
      ].join('\n'),
    );
  });

  it('is empty when nothing needs fixing', () => {
    expect(repairInstructions([], 'Fine as it is.')).toBe('');
  });
});
