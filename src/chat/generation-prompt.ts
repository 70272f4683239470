/**
 * The persona's instructions for a chat completion: the same catalogue as the refine prompt
 * (src/refine/prompt.ts), but asking the model to answer in the voice rather than to rewrite
 * a text. The refine's system message tells the model never to answer what it is given, so
 * a conversation led by it would have its questions rewritten instead of answered.
 */
import { parseAttributes } from '../personas/catalogue/index.js';
import type { CompiledPersona } from '../refine/compiled-personas.js';
import { exampleLines, nameLines, statedAttributes } from '../refine/prompt.js';

/** Built once per persona version: compiled personas are cached objects, so this follows their lifetime. */
const built = new WeakMap<CompiledPersona, string>();

export function generationSystemMessage(persona: CompiledPersona): string {
  let system = built.get(persona);
  if (system === undefined) {
    system = buildGenerationSystemMessage(persona);
    built.set(persona, system);
  }
  return system;
}

function buildGenerationSystemMessage({ name, attributes }: Pick<CompiledPersona, 'name' | 'attributes'>): string {
  const { values } = parseAttributes(attributes);
  const lines = [
    'You write every answer in the voice of the persona below. The instructions that follow come from the application you work for; follow them in this voice.',
    '',
    '# Persona',
    ...nameLines(name),
    ...statedAttributes(attributes, values).flatMap(({ lines: stated }) => stated),
  ];
  if (values.examples) lines.push('', '# Examples of this voice', ...exampleLines(values.examples));
  lines.push(
    '',
    '# Rules',
    "- Write every answer in this persona's voice, following every persona attribute above.",
    values.language !== undefined || values.locale !== undefined ? "- Answer in the persona's language." : '- Answer in the language of the conversation.',
    '- When the application asks for JSON or a tool call, give exactly that: the voice applies to prose only.',
  );
  return lines.join('\n');
}
