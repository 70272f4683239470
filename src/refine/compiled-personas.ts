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
import { notFound } from '../errors.js';
import { variantNames, variantOf } from '../personas/variants.js';
import { type PersonaRules, rulesFromValues } from '../rules/index.js';
import { buildSystemMessage } from './prompt.js';

export interface CompiledPersona {
  /** The version used: the pinned one, else the newest (answered as X-Persona-Version). */
  version: number;
  /** The variant merged over the version's attributes, if one was asked for (answered as X-Persona-Variant). */
  variant?: string;
  name: string;
  /** The attributes used: the version's, or with a variant the merge (without `variants`). */
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
    return this.compiled(id, await this.source(accountId, id, pin), pin.variant);
  }

  /**
   * One variant as GET /v1/personas/{id}/variants/{name} answers it: there the variant is the
   * resource, so an unknown one is a 404, where a request naming it is a 400.
   */
  async variant(accountId: string, id: string, name: string, pin: PersonaPin = {}): Promise<CompiledPersona> {
    const source = await this.source(accountId, id, pin);
    if (!variantNames(JSON.parse(source.attributesJson) as Record<string, unknown>).includes(name)) {
      throw notFound(`variant ${JSON.stringify(name.slice(0, 64))} of persona "${id}" not found`);
    }
    return this.compiled(id, source, name);
  }

  private async source(accountId: string, id: string, pin: PersonaPin): Promise<PersonaSource> {
    // Unpinned is the common case: one read of the persona row, no detour through the history.
    return pin.personaVersion === undefined && pin.personaLabel === undefined
      ? await this.personas.get(accountId, id)
      : ((await this.history.pinned(accountId, id, pin)) ?? (await this.personas.get(accountId, id)));
  }

  private compiled(id: string, source: PersonaSource, variantName: string | undefined): CompiledPersona {
    // A variant name holds no ":" or "/", so the keys of one version's variants never meet.
    const key = variantName === undefined ? `${id}:${source.version}` : `${id}:${source.version}/${variantName}`;
    let compiled = this.cache.get(key);
    if (!compiled) {
      const stored = JSON.parse(source.attributesJson) as Record<string, unknown>;
      const attributes = variantName === undefined ? stored : variantOf(stored, id, variantName);
      const persona = { name: source.name, attributes };
      const { values, invalid } = parseAttributes(attributes);
      const variant = variantName === undefined ? {} : { variant: variantName };
      compiled = { version: source.version, ...variant, ...persona, rules: rulesFromValues(values), minScore: values.minScore, system: buildSystemMessage(persona), invalid };
      this.cache.set(key, compiled, bytesOf(compiled, source.attributesJson));
    }
    return compiled;
  }
}

/** The version a refine uses, as read: the persona row or a version of its history. */
interface PersonaSource {
  version: number;
  name: string;
  attributesJson: string;
}
