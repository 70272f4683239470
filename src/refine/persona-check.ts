/** Lints any text against a persona's rules, without a provider (POST /v1/check). */
import type { CompiledPersonas } from './compiled-personas.js';
import type { PersonaPin } from '../personas/persona-history.js';
import { checkText, preservedOriginal } from '../rules/index.js';

/** What to check (POST /v1/check adapts its body to this). */
export interface CheckRequest extends PersonaPin {
  personaId: string;
  content: string;
  /** What `content` was rewritten from: its preserved items must all be in `content`. */
  original?: string;
}

export interface CheckVerdict {
  passed: boolean;
  violations: { rule: string; message: string; start: number; end: number }[];
  /** Well-known attributes held with a value of none of their shapes, ignored until fixed. */
  warnings: { attribute: string; message: string }[];
}

export interface CheckResult {
  verdict: CheckVerdict;
  /** The persona version checked against (X-Persona-Version). */
  personaVersion: number;
}

export class PersonaCheck {
  constructor(private readonly personas: CompiledPersonas) {}

  /** With `original` (what `content` was rewritten from), also reports the items of it that `content` lost. */
  async check(accountId: string, body: CheckRequest): Promise<CheckResult> {
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
