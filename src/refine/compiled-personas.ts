/**
 * What a refine derives from a persona — parsed attributes, rules, the system
 * prompt — computed once per persona version instead of on every request. The
 * row is still read every time (account scoping, freshness, the pinned
 * version or label); the version number is part of the key, and versions are
 * immutable, so an entry never goes stale.
 */
import { ByteBoundedLru } from '../limits/byte-bounded-lru.js';
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
  /** The score a text needs to pass (`minScore`), if the persona sets one. */
  minScore: number | undefined;
  system: string;
  /** Well-known keys stored with a value of none of their shapes, which prompt and rules ignore. */
  invalid: AttributeProblem[];
}

/**
 * Bounded in bytes, not entries: a persona's attributes may be 64 KiB and its prompt more,
 * so a count bound let a few accounts hold hundreds of megabytes. Strings are UTF-16; the
 * parsed attributes and rules are counted as about three times the stored JSON.
 */
const CACHE_BYTES = 32 * 1024 * 1024;
const bytesOf = (compiled: CompiledPersona, attributesJson: string) => 512 + 2 * (compiled.system.length + 3 * attributesJson.length);

export class CompiledPersonas {
  private readonly cache = new ByteBoundedLru<CompiledPersona>(CACHE_BYTES);

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
      compiled = { version: source.version, ...persona, rules: rulesFromValues(values), minScore: values.minScore, system: buildSystemMessage(persona), invalid };
      this.cache.set(key, compiled, bytesOf(compiled, source.attributesJson));
    }
    return compiled;
  }
}
