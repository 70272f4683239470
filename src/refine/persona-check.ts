/** Lints any text against a persona's rules, without a provider (POST /v1/check). */
import type { CompiledPersonas } from './compiled-personas.js';
import { checkText, preservedOriginal } from '../rules/index.js';
import type { CheckBody, CheckResponse } from '../schemas/refine.js';

export interface CheckResult {
  verdict: CheckResponse;
  /** The persona version checked against (X-Persona-Version). */
  personaVersion: number;
}

export class PersonaCheck {
  constructor(private readonly personas: CompiledPersonas) {}

  /** With `original` (what `content` was rewritten from), also reports the items of it that `content` lost. */
  async check(accountId: string, body: CheckBody): Promise<CheckResult> {
    const persona = await this.personas.get(accountId, body.personaId, body);
    const preserved = body.original !== undefined && persona.rules.preserve ? preservedOriginal(body.original) : undefined;
    const violations = checkText(persona.rules, body.content, preserved).map(({ rule, message, start, end }) => ({
      rule,
      message,
      start,
      end,
    }));
    const warnings = persona.invalid.map(({ key, message }) => ({ attribute: key, message: `${message}; it is ignored until fixed` }));
    return { verdict: { passed: violations.length === 0, violations, warnings }, personaVersion: persona.version };
  }
}
