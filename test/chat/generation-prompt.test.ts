/**
 * The persona's instructions for a chat completion: the refine prompt's catalogue (the same
 * attribute lines, examples and the author's own keys), asking for answers in the voice
 * rather than a rewrite.
 */
import { describe, expect, it } from 'vitest';
import { generationSystemMessage } from '../../src/chat/generation-prompt.js';
import { parseAttributes } from '../../src/personas/catalogue/index.js';
import type { CompiledPersona } from '../../src/refine/compiled-personas.js';
import { buildSystemMessage, statedAttributes } from '../../src/refine/prompt.js';
import { rulesFromValues } from '../../src/rules/index.js';

function compiled(attributes: Record<string, unknown>): CompiledPersona {
  const { values, invalid } = parseAttributes(attributes);
  return { version: 1, name: 'Acme Support', attributes, rules: rulesFromValues(values), minScore: undefined, system: buildSystemMessage({ name: 'Acme Support', attributes }), invalid };
}

const ATTRIBUTES = {
  tone: 'warm and direct',
  vocabulary: { customers: 'members' },
  examples: [{ before: 'Your account has been upgraded.', after: 'Your workspace is now on the Pro plan!' }],
  favouriteColour: 'teal',
};

describe('generationSystemMessage', () => {
  it('states every attribute line the refine prompt states, and the examples, but asks for answers, not rewrites', () => {
    const persona = compiled(ATTRIBUTES);
    const system = generationSystemMessage(persona);
    for (const { lines } of statedAttributes(ATTRIBUTES, parseAttributes(ATTRIBUTES).values)) for (const line of lines) expect(system).toContain(line);
    expect(system).toContain('Name: Acme Support');
    expect(system).toContain('# Examples of this voice');
    expect(system).toContain('Your workspace is now on the Pro plan!');
    expect(system).toMatch(/^You write every answer in the voice of the persona below\./);
    expect(system).not.toMatch(/rewrite/i);
    expect(system).toContain('- Answer in the language of the conversation.');
  });

  it("answers in the persona's language when it sets one", () => {
    expect(generationSystemMessage(compiled({ ...ATTRIBUTES, language: 'de' }))).toContain("- Answer in the persona's language.");
  });
});
