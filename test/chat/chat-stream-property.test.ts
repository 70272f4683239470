/**
 * The stream invariant of a chat completion, as a property over HTTP: for any answer text (the
 * persona's vocabulary, casing, emoji and sign-off rules fixing it as it goes) cut into any
 * pieces, in any wire format, the concatenated `delta.content` equals the content of the whole
 * answer to the same provider answer, and every chunk's text is a prefix step of it (nothing
 * the final answer drops is ever sent).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);

const word = fc.constantFrom('customers', 'Customers', 'acme cloud', 'ACME CLOUD', 'Acme Cloud', 'hello', 'we', 'ship', '🎉', '😀', 'on', 'Monday', '.', ',', '!', '\n', '\n\n', '  ', 'Cheers,', 'The', 'team');
const answerText = fc.array(word, { minLength: 1, maxLength: 25 }).map((words) => words.join(' ').trim()).filter((text) => text !== '');

/** Cuts `text` at the given fractions into non-empty pieces (by UTF-16 units, so a surrogate pair may be split too). */
const cut = (text: string, at: number[]) => {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)).filter((p) => p > 0 && p < text.length))].sort((a, b) => a - b);
  return [0, ...points].map((start, i) => text.slice(start, points[i] ?? text.length));
};

describe('chat completion streams say what the whole answer says', () => {
  let f: RefineFixture;
  let personaId: string;
  const complete = (provider: string, stream: boolean) =>
    f.server.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-persona': personaId, 'x-provider-api-key': callerKey(provider) },
      json: { model: provider, messages: [{ role: 'user', content: 'Status?' }], ...(stream ? { stream: true } : {}) },
    });

  beforeAll(async () => {
    f = await startRefineFixture({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    const attributes = { vocabulary: { customers: 'members' }, casing: ['Acme Cloud'], emoji: 'none', signOff: 'Cheers,\nThe Acme team' };
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Streamed', attributes } })).json()).id;
  });
  afterAll(() => f.close());

  it('for any text, any split and any wire format', async () => {
    await fc.assert(
      fc.asyncProperty(answerText, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }), fc.constantFrom('openai', 'groq', 'anthropic', 'google'), async (reply, at, provider) => {
        f.fake.reset();
        f.fake.setBehaviour({ mode: 'ok', reply });
        const whole = await complete(provider, false);
        expect(whole.status).toBe(200);
        const content = (await whole.json()).choices[0].message.content as string;
        f.fake.setBehaviour({ mode: 'ok', reply, pieces: cut(reply, at), wholeEvents: false });
        const streamed = await complete(provider, true);
        expect(streamed.status).toBe(200);
        const lines = (await streamed.text()).split('\n').filter((line) => line.startsWith('data: '));
        expect(lines.at(-1)).toBe('data: [DONE]');
        let shown = '';
        for (const line of lines.slice(0, -1)) {
          shown += JSON.parse(line.slice(6)).choices[0]?.delta.content ?? '';
          expect(content.startsWith(shown), JSON.stringify({ shown, content })).toBe(true);
        }
        expect(shown).toBe(content);
      }),
      { numRuns: RUNS },
    );
  });
});
