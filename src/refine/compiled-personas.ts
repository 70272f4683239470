/**
 * What a refine derives from a persona — parsed attributes, rules, the system
 * prompt — computed once per persona version instead of on every request. The
 * row is still read every time (account scoping, freshness, the pinned
 * version or label); the version number is part of the key, and versions are
 * immutable, so an entry never goes stale.
 */
import { type AttributeProblem, parseAttributes } from '../personas/catalogue/index.js';
import type { PersonaHistory, PersonaPin } from '../personas/persona-history.js';
import type { PersonaService } from '../personas/persona-service.js';
import { type PersonaRules, rulesFromValues } from '../rules/index.js';
import { buildSystemMessage } from './prompt.js';

export interface CompiledPersona {
  /** The version used: the pinned one, else the newest (answered as X-Persona-Version). */
  version: number;
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

  constructor(
    private readonly personas: PersonaService,
    private readonly history: PersonaHistory,
  ) {}

  async get(accountId: string, id: string, pin: PersonaPin = {}): Promise<CompiledPersona> {
    // Unpinned is the common case: one read of the persona row, no detour through the history.
    const source =
      pin.personaVersion === undefined && pin.personaLabel === undefined
        ? await this.personas.get(accountId, id)
        : ((await this.history.pinned(accountId, id, pin)) ?? (await this.personas.get(accountId, id)));
    const key = `${id}:${source.version}`;
    let compiled = this.cache.get(key);
    if (!compiled) {
      const attributes = JSON.parse(source.attributesJson) as Record<string, unknown>;
      const persona = { name: source.name, attributes };
      const { values, invalid } = parseAttributes(attributes);
      compiled = { version: source.version, ...persona, rules: rulesFromValues(values), system: buildSystemMessage(persona), invalid };
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(key, compiled);
    }
    return compiled;
  }
}
