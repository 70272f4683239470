/** Lints any text against a persona's rules, without a provider (POST /v1/check). */
import { checkText, rulesFromAttributes } from '../rules/index.js';
import type { CheckResponse } from '../schemas/refine.js';
import type { PersonaService } from './persona-service.js';

export class PersonaCheck {
  constructor(private readonly personas: PersonaService) {}

  async check(accountId: string, personaId: string, content: string): Promise<CheckResponse> {
    const persona = await this.personas.getDefinition(accountId, personaId);
    const violations = checkText(rulesFromAttributes(persona.attributes), content).map(({ rule, message, start, end }) => ({
      rule,
      message,
      start,
      end,
    }));
    return { passed: violations.length === 0, violations };
  }
}
