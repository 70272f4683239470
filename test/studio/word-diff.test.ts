/** The studio's word-level diff between a text and its refinement. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize, wordDiff } from '../../studio/src/preview/word-diff.js';

const side = (parts: ReturnType<typeof wordDiff>, kind: 'removed' | 'added') =>
  parts.filter((part) => part.kind === 'same' || part.kind === kind).map((part) => part.text).join('');

describe('wordDiff', () => {
  it('marks whole words, grouping a run of changes into one removal and one insertion', () => {
    expect(wordDiff('Hello there, we will utilize synergy.', 'Hi there, we will use teamwork.')).toEqual([
      { kind: 'removed', text: 'Hello' },
      { kind: 'added', text: 'Hi' },
      { kind: 'same', text: ' there, we will ' },
      { kind: 'removed', text: 'utilize synergy' },
      { kind: 'added', text: 'use teamwork' },
      { kind: 'same', text: '.' },
    ]);
  });

  it('handles empty and identical texts', () => {
    expect(wordDiff('', '')).toEqual([]);
    expect(wordDiff('', 'new text')).toEqual([{ kind: 'added', text: 'new text' }]);
    expect(wordDiff('old text', '')).toEqual([{ kind: 'removed', text: 'old text' }]);
    expect(wordDiff('same\n\ntext', 'same\n\ntext')).toEqual([{ kind: 'same', text: 'same\n\ntext' }]);
  });

  it('keeps words of any script whole, and punctuation apart', () => {
    expect(tokenize("Grüße, don't panic — 東京!")).toEqual(['Grüße', ',', ' ', "don't", ' ', 'panic', ' ', '—', ' ', '東京', '!']);
  });

  it('always rebuilds both texts exactly, whatever they are', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'cat', 'dog', ' ', '  ', '\n', ',', '.', 'é'), { maxLength: 40 }).map((words) => words.join(''));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const parts = wordDiff(before, after);
        expect(side(parts, 'removed')).toBe(before);
        expect(side(parts, 'added')).toBe(after);
      }),
    );
  });

  it('gives up gracefully on texts too different to diff cheaply', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `a${i}`).join(' ');
    const after = Array.from({ length: 3000 }, (_, i) => `b${i}`).join(' ');
    const started = performance.now();
    const parts = wordDiff(before, after);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(side(parts, 'removed')).toBe(before);
    expect(side(parts, 'added')).toBe(after);
  });
});
