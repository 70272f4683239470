/**
 * What a refine derives from a persona — parsed attributes, rules, the system
 * prompt — computed once per persona version instead of on every request. The
 * row is still read every time (account scoping, freshness); its ETag is part
 * of the key, so a write makes the next request compile the new version.
 */
import { type AttributeProblem, parseAttributes } from '../personas/catalogue/index.js';
import type { PersonaService } from '../personas/persona-service.js';
import { type PersonaRules, rulesFromValues } from '../rules/index.js';
import { buildSystemMessage } from './prompt.js';

export interface CompiledPersona {
  name: string;
  attributes: Record<string, unknown>;
  rules: PersonaRules;
  system: string;
  /** Well-known keys stored with a value of none of their shapes, which prompt and rules ignore. */
  invalid: AttributeProblem[];
}

const MAX_CACHED = 1_000;

export class CompiledPersonas {
  private readonly cache = new Map<string, CompiledPersona>();

  constructor(private readonly personas: PersonaService) {}

  async get(accountId: string, id: string): Promise<CompiledPersona> {
    const record = await this.personas.get(accountId, id);
    const key = `${record.id}:${record.etag}`;
    let compiled = this.cache.get(key);
    if (!compiled) {
      const attributes = JSON.parse(record.attributesJson) as Record<string, unknown>;
      const persona = { name: record.name, attributes };
      const { values, invalid } = parseAttributes(attributes);
      compiled = { ...persona, rules: rulesFromValues(values), system: buildSystemMessage(persona), invalid };
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(key, compiled);
    }
    return compiled;
  }
}
