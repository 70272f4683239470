import { describe, expect, it } from 'vitest';
import { PATTERN_CACHE_BYTES, patternCacheUsage } from '../../src/rules/compiled-patterns.js';
import { signOffSpan } from '../../src/rules/sign-off.js';
import { findPhrases } from '../../src/rules/word-match.js';

describe('the compiled-pattern cache', () => {
  it('is bounded in bytes, not entries: thirty personas at the term limits keep only what fits the budget', () => {
    for (let persona = 0; persona < 30; persona++) {
      const terms = Array.from({ length: 200 }, (_, i) => `p${persona}t${i}`.padEnd(90, 'q'));
      findPhrases('some text to match against', terms, () => false);
      signOffSpan('Best regards', `Cheers from persona ${persona}`);
    }
    const { entries, bytes } = patternCacheUsage();
    expect(bytes).toBeLessThanOrEqual(PATTERN_CACHE_BYTES);
    // A count-bounded cache (the old one kept 1,000 per kind) would hold all 60.
    expect(entries).toBeLessThan(30);
    expect(entries).toBeGreaterThan(0);
  });

  it('still reuses a pattern: a new list is compiled and kept once, the same list again is not compiled anew', () => {
    const terms = ['synergy', 'leverage', `unique-${Date.now()}`];
    const before = patternCacheUsage();
    expect(findPhrases('synergy here', terms, () => false)).toHaveLength(1);
    const kept = patternCacheUsage();
    expect(kept.entries).toBe(before.entries + 1);
    expect(findPhrases('leverage there', terms, () => false)).toHaveLength(1);
    expect(patternCacheUsage()).toEqual(kept);
  });
});
