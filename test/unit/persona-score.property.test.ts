import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RULE_IDS, rulesFromAttributes, checkText, preservedOriginal, type RuleId, type Severity } from '../../src/rules/index.js';
import { FINDING_PENALTY, passes, personaScore, SCORE_WEIGHTS, voiceScore } from '../../src/scoring/persona-score.js';

const finding = fc.record({
  rule: fc.constantFrom<RuleId>(...RULE_IDS),
  severity: fc.constantFrom<Severity>('required', 'recommended'),
});
const input = fc.record({
  findings: fc.array(finding, { maxLength: 20 }),
  originalItems: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
  ratings: fc.option(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 12 }), { nil: undefined }),
});
// A preserve finding is one lost item of the original: never more than the original had.
const consistent = input.filter(({ findings, originalItems }) => findings.filter((f) => f.rule === 'preserve').length <= (originalItems ?? 0));

describe('persona score', () => {
  it('is 100 with no finding, nothing lost and no judge', () => {
    expect(personaScore({ findings: [], originalItems: undefined })).toEqual({ score: 100, scores: { rules: 100, facts: 100 } });
    expect(personaScore({ findings: [], originalItems: 4 })).toEqual({ score: 100, scores: { rules: 100, facts: 100 } });
  });

  it('is deterministic and within 0–100', () => {
    fc.assert(
      fc.property(consistent, (value) => {
        const once = personaScore(value);
        expect(personaScore(structuredClone(value))).toEqual(once);
        for (const part of [once.score, once.scores.rules, once.scores.facts, once.scores.voice ?? 0]) {
          expect(Number.isInteger(part) && part >= 0 && part <= 100).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never rises with one more finding, and falls while the rules score is above 0; a required finding weighs more', () => {
    fc.assert(
      fc.property(consistent, finding.filter((f) => f.rule !== 'preserve'), (value, extra) => {
        const before = personaScore(value);
        const after = personaScore({ ...value, findings: [...value.findings, extra] });
        expect(after.score).toBeLessThanOrEqual(before.score);
        if (before.scores.rules > 0) {
          expect(after.scores.rules).toBeLessThan(before.scores.rules);
          expect(after.score).toBeLessThan(before.score);
        }
        const required = personaScore({ ...value, findings: [...value.findings, { ...extra, severity: 'required' }] });
        const recommended = personaScore({ ...value, findings: [...value.findings, { ...extra, severity: 'recommended' }] });
        expect(required.scores.rules).toBeLessThanOrEqual(recommended.scores.rules);
        if (before.scores.rules >= FINDING_PENALTY.required) expect(required.scores.rules).toBeLessThan(recommended.scores.rules);
      }),
      { numRuns: 2000 },
    );
  });

  it('lowers facts with each lost item of the original, and never raises score for a lower rating', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 8 }), (items, ratings) => {
        const lost = (n: number) => Array.from({ length: n }, () => ({ rule: 'preserve' as const, severity: 'required' as const }));
        for (let n = 0; n < items; n++) {
          expect(personaScore({ findings: lost(n + 1), originalItems: items }).scores.facts).toBeLessThan(
            personaScore({ findings: lost(n), originalItems: items }).scores.facts,
          );
        }
        const lower = ratings.map((rating, i) => (i === 0 ? Math.max(1, rating - 1) : rating));
        expect(personaScore({ findings: [], originalItems: undefined, ratings: lower }).score).toBeLessThanOrEqual(
          personaScore({ findings: [], originalItems: undefined, ratings }).score,
        );
      }),
    );
  });

  it('combines the parts with the documented weights', () => {
    // rules 100 − 10 − 4 = 86, facts 1 of 4 lost = 75, voice mean 4 → 75.
    const findings = [
      { rule: 'avoid' as const, severity: 'required' as const },
      { rule: 'maxWords' as const, severity: 'recommended' as const },
      { rule: 'preserve' as const, severity: 'required' as const },
    ];
    const judged = personaScore({ findings, originalItems: 4, ratings: [3, 5] });
    expect(judged.scores).toEqual({ rules: 86, facts: 75, voice: 75 });
    const { rules, facts, voice } = SCORE_WEIGHTS;
    expect(judged.score).toBe(Math.round((86 * rules + 75 * facts + 75 * voice) / (rules + facts + voice)));
    expect(personaScore({ findings: findings.slice(0, 2), originalItems: undefined }).score).toBe(86);
    expect([1, 2, 3, 4, 5].map((r) => voiceScore([r]))).toEqual([0, 25, 50, 75, 100]);
  });

  it('passes only without a required finding and at or above minScore', () => {
    expect(passes([{ severity: 'recommended' }], 96, undefined)).toBe(true);
    expect(passes([{ severity: 'required' }], 90, undefined)).toBe(false);
    expect(passes([{ severity: 'recommended' }], 79, 80)).toBe(false);
    expect(passes([], 80, 80)).toBe(true);
  });
});

describe('severities from enforce', () => {
  const text = 'We leverage synergy here and there and everywhere.';

  it('makes every finding required by default, and existing enforce maps keep working', () => {
    for (const enforce of [undefined, true, { avoid: true }, { emoji: false }]) {
      const rules = rulesFromAttributes({ avoid: ['synergy'], maxWords: 3, ...(enforce === undefined ? {} : { enforce }) });
      const findings = checkText(rules, text);
      expect(findings.map((f) => [f.rule, f.severity])).toEqual([['maxWords', 'required'], ['avoid', 'required']]);
    }
  });

  it('gives a rule set to "recommended" recommended findings, "required" required ones, false none', () => {
    const rules = rulesFromAttributes({ avoid: ['synergy', 'leverage'], maxWords: 3, enforce: { maxWords: 'recommended', avoid: 'required' } });
    expect(checkText(rules, text).map((f) => [f.rule, f.severity])).toEqual([
      ['maxWords', 'recommended'],
      ['avoid', 'required'],
      ['avoid', 'required'],
    ]);
    const off = rulesFromAttributes({ avoid: ['synergy'], maxWords: 3, enforce: { maxWords: false, preserve: 'recommended' } });
    const original = preservedOriginal('Call 555-0100 or see https://acme.example.');
    const lost = checkText(off, 'Call us.', original);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((f) => f.rule === 'preserve' && f.severity === 'recommended')).toBe(true);
  });
});
