/**
 * Rules on a stream: whatever way the provider splits its answer, no piece shown ever
 * holds text the non-streamed refine would have changed, and the pieces add up to the
 * non-streamed result (without its repair call).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanModelOutput } from '../../src/refine/output-cleanup.js';
import { SecretScrubber } from '../../src/providers/secret-scrubber.js';
import { StreamRefinement } from '../../src/refine/stream-refinement.js';
import { enforce, preservedOriginal, rulesFromAttributes } from '../../src/rules/index.js';

const attributes = {
  vocabulary: { customers: 'members', 'help desk': 'support team', 'sign up': 'join', 'e-mail': 'email' },
  casing: ['Acme Cloud', 'GitHub', 'macOS', 'Persona Refine Pro'],
  emoji: 'none',
  signOff: 'Best,\nThe Acme Team',
};
const rules = rulesFromAttributes(attributes);

/** Unfixed spellings of every vocabulary and casing phrase, as a model might write them. */
const unfixed = ['customers', 'help desk', 'sign up', 'e-mail', 'acme cloud', 'github', 'MacOS', 'persona refine pro'];

const nonStreamed = (answer: string) => enforce(rules, cleanModelOutput(answer)).text;

function stream(pieces: string[], refinement = new StreamRefinement(rules)) {
  const deltas = pieces.map((piece) => refinement.push(piece)).filter((delta) => delta !== '');
  const end = refinement.finish();
  if (end.rest !== '') deltas.push(end.rest);
  return { deltas, end };
}

function splitAt(text: string, cuts: number[]): string[] {
  const points = [0, ...cuts.sort((a, b) => a - b), text.length];
  return points.slice(1).map((point, i) => text.slice(points[i], point));
}

describe('stream refinement', () => {
  const phraseIn = (phrase: string) => `Dear team, our ${phrase} update ships today for everyone who asked.\n\nMore soon.`;

  it.each(unfixed)('never shows "%s" unfixed, for every split into two and three pieces', (phrase) => {
    const answer = phraseIn(phrase);
    const expected = nonStreamed(answer);
    const at = answer.indexOf(phrase);
    for (let a = at; a <= at + phrase.length; a++) {
      for (let b = a; b <= at + phrase.length + 1; b++) {
        const { deltas, end } = stream(splitAt(answer, b === a ? [a] : [a, b]));
        expect(end.replaced).toBe(false);
        expect(deltas.join('')).toBe(expected);
        expect(end.response).toBe(expected);
        for (const delta of deltas) expect(delta).not.toContain(phrase);
      }
    }
  });

  it('settles a long answer a number of times that grows with the log of its length, not the length (linear work)', () => {
    const line = 'Our customers on acme cloud can sign up by e-mail.\n';
    const answer = line.repeat(4_000); // 204 KB, a line break every 51 characters
    const pieces = answer.match(/.{1,6}/gs) ?? [];
    const { deltas, end } = stream(pieces);
    expect(end.replaced).toBe(false);
    expect(deltas.join('')).toBe(nonStreamed(answer));
    // One paragraph: each delta is one settle, and each settle costs the paragraph's length so
    // far; a settle every line (4,000) would be quadratic, a step of a quarter keeps it linear.
    expect(deltas.length).toBeLessThan(80);
    // What is held back stays a quarter of the paragraph (plus the few words the rules need).
    expect(end.rest.length).toBeLessThan(answer.length / 4 + 200);
  });

  it('holds back only what the longest phrase and the sign-off need, not the whole answer', () => {
    const refinement = new StreamRefinement(rules);
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
    const shown = words.map((word) => refinement.push(`${word} `)).join('');
    // Longest phrase 3 words, sign-off 4 words, 2 more: 9 words held.
    // Settling waits for 24 new characters, so up to 4 more words may be held at any moment.
    expect(words.slice(0, 31).join(' ').startsWith(shown)).toBe(true);
    expect(shown.split(' ').length).toBeGreaterThanOrEqual(27);
  });

  it('property: any split of a text full of phrases streams exactly the non-streamed result', () => {
    const fragment = fc.constantFrom(...unfixed, 'Customers', 'the', 'HELP DESK', '👋', 'https://github.com/acme/customers', '`github`', 'and', '\n', '.', ',');
    fc.assert(
      fc.property(fc.array(fragment, { minLength: 1, maxLength: 25 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, cutSeeds) => {
        const answer = parts.join(' ');
        const cuts = cutSeeds.map((seed) => seed % (answer.length + 1));
        const { deltas, end } = stream(splitAt(answer, cuts));
        expect(end.replaced).toBe(false);
        expect(deltas.join('')).toBe(nonStreamed(answer));
      }),
      { numRuns: 300 },
    );
  });

  it('holds an answer wrapped in quotes until its end decides, then strips them like the non-streamed path', () => {
    const answer = '"Our customers can now sign up on github today."';
    const { deltas } = stream(answer.split(/(?<= )/));
    expect(deltas.join('')).toBe(nonStreamed(answer));
    expect(deltas.join('')).not.toContain('"');
  });

  it('removes a preamble without showing it', () => {
    const answer = 'Here is the rewritten text:\n\nOur customers love github and the help desk.';
    const { deltas } = stream(answer.split(/(?<= )/));
    expect(deltas.join('')).toBe(nonStreamed(answer));
    expect(deltas.some((delta) => delta.includes('Here'))).toBe(false);
  });

  it('leaves code spans that close later unchanged, as the non-streamed path does', () => {
    const answer = 'Run `acme sync --customers github` now, customers.';
    const { deltas } = stream(answer.split(/(?<= )/));
    expect(deltas.join('')).toBe(nonStreamed(answer));
  });

  it('without rules, shows each piece as it arrives once the start is settled, mid-word included', () => {
    const refinement = new StreamRefinement(undefined);
    expect(['Than', 'k yo', 'u fo', 'r wr', 'itin', 'g.  '].map((piece) => refinement.push(piece))).toEqual(['Than', 'k yo', 'u fo', 'r wr', 'itin', 'g.']);
    expect(refinement.finish()).toMatchObject({ rest: '', response: 'Thank you for writing.', replaced: false });
  });

  it('without rules, holds an opening only while it may still become a preamble', () => {
    const opening = new StreamRefinement(undefined);
    expect(['The', ' w', 'eather'].map((piece) => opening.push(piece))).toEqual(['', 'The w', 'eather']);
    const preamble = new StreamRefinement(undefined);
    const deltas = ['Su', 're! ', 'Here', ' is the re', 'written text:', '\n\n', 'Ahoy', ' there'].map((piece) => preamble.push(piece));
    expect(deltas.join('')).toBe('Ahoy there');
    expect(deltas.slice(0, 6).join('')).toBe('');
  });

  it('without rules, holds back a closing element in the making and what may become a fragment of the key', () => {
    const key = 'FAKE-openai-key-9f8e7d6c5b4a';
    const scrubber = new SecretScrubber([key]);
    const refinement = new StreamRefinement(undefined, undefined, scrubber);
    const pieces = ['Done. Your secret ', '9f8e', '7d6c is set.', '</text-to-', 'rewrite>'];
    const deltas = pieces.map((piece) => refinement.push(piece));
    const end = refinement.finish();
    expect(deltas.join('') + end.rest).toBe(scrubber.scrub(cleanModelOutput(pieces.join(''))));
    expect(end.response).toMatch(/^Done\. Your secret \[redacted\] is set\.$/);
    expect(deltas.join('')).not.toContain('9f8e');
    expect(deltas.join('')).not.toContain('<');
    expect(end.replaced).toBe(false);
  });

  it('holds back an echoed closing element with attributes, in pieces, which the cleanup removes', () => {
    const pieces = ['Thank you for writing. ', 'We will answer soon.', ' </text-to-rewrite', ' lang="en"', '>'];
    for (const [withRules, expected] of [[undefined, 'Thank you for writing. We will answer soon.'], [rules, nonStreamed(pieces.join(''))]] as const) {
      const refinement = new StreamRefinement(withRules);
      const deltas = pieces.map((piece) => refinement.push(piece));
      const end = refinement.finish();
      expect(deltas.join('')).not.toContain('<');
      expect(end.replaced).toBe(false);
      expect(deltas.join('') + end.rest).toBe(expected);
    }
  });

  it('rules that only check (preserve, avoid) show each piece as it arrives and still judge the whole answer at the end', () => {
    const checksOnly = rulesFromAttributes({ tone: 'warm', avoid: ['synergy'] });
    expect(checksOnly.preserve).toBe(true);
    const original = preservedOriginal('Order 42 ships today: https://acme.com/orders/42');
    const refinement = new StreamRefinement(checksOnly, original);
    const pieces = ['Than', 'k yo', 'u! O', 'rder', ' 42 ', 'ship', 's to', 'day.'];
    const deltas = pieces.map((piece) => refinement.push(piece));
    // Each piece leaves as it arrives, a trailing blank only with the next word.
    expect(deltas).toEqual(['Than', 'k yo', 'u! O', 'rder', ' 42', ' ship', 's to', 'day.']);
    const end = refinement.finish();
    expect(end.response).toBe(pieces.join(''));
    expect(end.violations).toEqual(enforce(checksOnly, pieces.join(''), original).remaining);
    expect(end.violations.map((finding) => finding.rule)).toContain('preserve');
  });

  it('without rules, only the cleanup applies', () => {
    const refinement = new StreamRefinement(undefined);
    const { deltas, end } = stream(['Plain ', 'text with customers ', 'and github.  '], refinement);
    expect(deltas.join('')).toBe('Plain text with customers and github.');
    expect(end.violations).toEqual([]);
  });
});
