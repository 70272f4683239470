/** Lints any text against a persona's rules, without a provider (POST /v1/check). */
import type { CompiledPersonas } from './compiled-personas.js';
import type { PersonaPin } from '../personas/persona-history.js';
import { checkText, preservedOriginal, type Severity } from '../rules/index.js';
import { passes, personaScore, type SubScores } from '../scoring/persona-score.js';

/** What to check (POST /v1/check adapts its body to this). */
export interface CheckRequest extends PersonaPin {
  personaId: string;
  content: string;
  /** What `content` was rewritten from: its preserved items must all be in `content`. */
  original?: string;
}

export interface CheckVerdict {
  passed: boolean;
  score: number;
  scores: SubScores;
  violations: { rule: string; severity: Severity; message: string; start: number; end: number }[];
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
    const violations = checkText(persona.rules, body.content, preserved).map(({ rule, severity, message, start, end }) => ({
      rule,
      severity,
      message,
      start,
      end,
    }));
    const warnings = persona.invalid.map(({ key, message }) => ({ attribute: key, message: `${message}; it is ignored until fixed` }));
    const { score, scores } = personaScore({ findings: violations, originalItems: preserved?.items.length });
    const passed = passes(violations, score, persona.minScore);
    return { verdict: { passed, score, scores, violations, warnings }, personaVersion: persona.version };
  }
}
