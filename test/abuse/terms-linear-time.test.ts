/**
 * A term base at its limit (2,000 entries) stays linear in the text, streamed or not: the rule
 * walks a token trie (src/rules/term-match.ts), where one alternation of its phrases took
 * minutes on a megabyte. CPU is compared within one run (a ratio), never against a clock.
 */
import { describe, expect, it } from 'vitest';
import { cleanModelOutput } from '../../src/refine/output-cleanup.js';
import { StreamRefinement } from '../../src/refine/stream-refinement.js';
import { enforce, preservedOriginal, rulesFromAttributes } from '../../src/rules/index.js';

const MiB = 1024 * 1024;

const cpuMs = (work: () => unknown): number => {
  const started = process.cpuUsage();
  work();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
};

describe('a term base of 2,000 entries, linear in the input', () => {
  it('a term base of 2,000 entries costs CPU per MiB for 4 MiB no more than for half a MiB, streamed or not, and streams what the non-streamed path returns', () => {
    const terms = Array.from({ length: 1999 }, (_, i) => ({
      term: `term${i} x`,
      use: ['preferred', 'forbidden', 'keep'][i % 3],
      ...(i % 3 === 0 ? { replaces: [`old${i}`, `older ${i} form`] } : {}),
    }));
    const termRules = rulesFromAttributes({ terms: [...terms, { term: 'member', use: 'preferred', replaces: ['customer'] }] });
    const sentence = 'Our customers utilize old0 and older 3 form daily; term1 x stays, `old6` too. ';
    const text = (size: number) => `${`${sentence.repeat(8).trimEnd()}\n\n`.repeat(Math.ceil(size / (sentence.length * 8 + 2)))}`.slice(0, size);
    const once = (size: number) => enforce(termRules, text(size), preservedOriginal('term1 x'));
    const stream = (size: number) => {
      const refinement = new StreamRefinement(termRules);
      let shown = '';
      for (const piece of text(size).match(/[\s\S]{1,64}/g) ?? []) shown += refinement.push(piece);
      const end = refinement.finish();
      expect(end.replaced).toBe(false);
      return shown + end.rest;
    };
    once(64 * 1024);
    const small = cpuMs(() => once(MiB / 2));
    const large = cpuMs(() => once(4 * MiB));
    let streamedText = '';
    const streamedSmall = cpuMs(() => stream(MiB / 2));
    const streamedLarge = cpuMs(() => (streamedText = stream(4 * MiB)));
    console.log(`CPU with 2,000 terms: ½ MiB ${small.toFixed(0)} ms, 4 MiB ${large.toFixed(0)} ms; streamed ½ MiB ${streamedSmall.toFixed(0)} ms, 4 MiB ${streamedLarge.toFixed(0)} ms`);
    expect(once(MiB / 2).fixed.terms).toBeGreaterThan(0);
    expect(streamedText).toBe(enforce(termRules, cleanModelOutput(text(4 * MiB))).text);
    expect(large / 8).toBeLessThan(Math.max(small, 5) * 1.6);
    expect(streamedLarge / 8).toBeLessThan(Math.max(streamedSmall, 5) * 1.6);
  }, 240_000);
});
