/**
 * The streaming invariant for a generated answer (a chat completion's), as a property: nothing
 * is unwrapped (an answer that is one code block, one quotation or opens with "Here is the
 * rewritten text:" is the model's own), only the blanks around it go; under any persona rules,
 * split into any pieces, the deltas concatenate to the end's response, which is the rules
 * applied to the trimmed answer, and no fragment of the key is ever shown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretScrubber } from '../../src/providers/secret-scrubber.js';
import { generatedCleanup } from '../../src/refine/output-cleanup.js';
import { StreamRefinement } from '../../src/refine/stream-refinement.js';
import { enforce, rulesFromAttributes } from '../../src/rules/index.js';

const RUNS = process.env.FUZZ_RUNS === undefined ? 1_000 : Number(process.env.FUZZ_RUNS) * 10;
const KEY = 'sk-FAKE-not-a-key-generated-9f8e7d';

const word = fc.constantFrom(
  'customers', 'help desk', 'synergy', 'GitHub', 'github', 'ships', 'today', 'café', '中文', '👋', '—', '42', '`code`', '```', '```python', '"', '“', '”',
  'Here is the rewritten text:', 'Sure!', '<text-to-rewrite>', '</text-to-rewrite>', 'Best,', KEY, KEY.slice(4, 16), '\n', '\n\n', '  ',
);
const answer = fc.array(word, { minLength: 1, maxLength: 30 }).map((words) => words.join(' '));
const persona = fc.record(
  {
    vocabulary: fc.constantFrom({ customers: 'members' }, { 'help desk': 'support team' }),
    casing: fc.constantFrom(['GitHub'], ['macOS']),
    avoid: fc.constantFrom(['synergy'], ['today']),
    signOff: fc.constantFrom('Best,\nThe Acme Team', 'Cheers!'),
  },
  { requiredKeys: [] },
);

function splitAt(text: string, seeds: number[]): string[] {
  const points = [...text].reduce<number[]>((ends, char) => [...ends, (ends.at(-1) ?? 0) + char.length], []);
  const cuts = [...new Set(seeds.map((seed) => points[seed % Math.max(1, points.length)] ?? 0))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    if (cut > from) pieces.push(text.slice(from, cut));
    from = Math.max(from, cut);
  }
  return pieces;
}

describe('a generated answer, streamed', () => {
  const scrubber = new SecretScrubber([KEY]);

  it(`shows, for ${RUNS} answers, personas (or none) and splits, exactly the rules applied to the trimmed answer`, () => {
    fc.assert(
      fc.property(answer, fc.option(persona), fc.array(fc.nat(), { maxLength: 40 }), (text, attributes, seeds) => {
        const rules = attributes === null ? undefined : rulesFromAttributes(attributes);
        const cleaned = scrubber.scrub(text.trim());
        const expected = rules === undefined ? cleaned : enforce(rules, cleaned).text;
        const refinement = new StreamRefinement(rules, undefined, scrubber, generatedCleanup);
        const deltas = splitAt(text, seeds).map((piece) => refinement.push(piece));
        const end = refinement.finish();
        expect(end.replaced).toBe(false);
        expect(deltas.join('') + end.rest).toBe(end.response);
        expect(end.response).toBe(expected);
        for (const delta of deltas) expect(delta).not.toContain('9f8e7d');
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps an answer that is one code block as one code block, which a rewrite\'s cleanup unwraps', () => {
    const code = '```python\nprint("hi")\n```';
    const refinement = new StreamRefinement(undefined, undefined, undefined, generatedCleanup);
    const shown = splitAt(code, [3, 7, 11]).map((piece) => refinement.push(piece)).join('');
    const end = refinement.finish();
    expect(shown + end.rest).toBe(code);
    expect(end.response).toBe(code);
    const rewrite = new StreamRefinement(undefined);
    rewrite.append(code);
    expect(rewrite.finish().response).toBe('print("hi")');
  });
});
