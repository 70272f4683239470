/** Lints any text against a persona's rules, without a provider (POST /v1/check). */
import type { CompiledPersonas } from './compiled-personas.js';
import { checkText } from '../rules/index.js';
import type { CheckResponse } from '../schemas/refine.js';

export class PersonaCheck {
  constructor(private readonly personas: CompiledPersonas) {}

  async check(accountId: string, personaId: string, content: string): Promise<CheckResponse> {
    const persona = await this.personas.get(accountId, personaId);
    const violations = checkText(persona.rules, content).map(({ rule, message, start, end }) => ({
      rule,
      message,
      start,
      end,
    }));
    const warnings = persona.invalid.map(({ key, message }) => ({ attribute: key, message: `${message}; it is ignored until fixed` }));
    return { passed: violations.length === 0, violations, warnings };
  }
}
