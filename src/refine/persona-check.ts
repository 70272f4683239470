/** Lints any text against a persona's rules, and with a judge rates its voice (POST /v1/check). */
import { type AnswerObserver, unobserved } from '../quality/answer-event.js';
import type { CompiledPersonas } from './compiled-personas.js';
import type { PersonaPin } from '../personas/persona-history.js';
import { SecretScrubber } from '../providers/secret-scrubber.js';
import { checkText, originalFor, type Severity } from '../rules/index.js';
import type { Judge } from '../scoring/judge.js';
import type { JudgeRequest, JudgeVerdict } from '../scoring/judge-verdict.js';
import { passes, scoreOf, type SubScores } from '../scoring/persona-score.js';
import type { UsageTally } from '../usage/usage-tally.js';

/** What to check (POST /v1/check adapts its body to this). */
export interface CheckRequest extends PersonaPin {
  personaId: string;
  content: string;
  /** What `content` was rewritten from: its preserved items must all be in `content`. */
  original?: string;
  /** Rates `content` against the persona's descriptive attributes (docs/voice-score.md, "The judge"). */
  judge?: JudgeRequest;
}

export interface CheckVerdict {
  passed: boolean;
  score: number;
  scores: SubScores;
  violations: { rule: string; severity: Severity; message: string; start: number; end: number; term?: string }[];
  /** Well-known attributes held with a value of none of their shapes, ignored until fixed. */
  warnings: { attribute: string; message: string }[];
  /** Present when the request asked for a judge: its ratings, or why it gave none. */
  judge?: JudgeVerdict;
}

export interface CheckResult {
  verdict: CheckVerdict;
  /** The persona version checked against (X-Persona-Version). */
  personaVersion: number;
  /** The persona's variant checked against, if any (X-Persona-Variant). */
  personaVariant?: string;
  /** The judge's provider calls and tokens (X-Usage), when judged. */
  usage?: UsageTally;
}

export class PersonaCheck {
  constructor(
    private readonly personas: CompiledPersonas,
    private readonly judge: Judge,
    /** PROVIDER_TIMEOUT_MS: the judge's deadline, its retries included. */
    private readonly timeoutMs: number,
    /** Hears of every check (quality on live traffic, docs/quality.md). */
    private readonly answers: AnswerObserver = unobserved,
  ) {}

  /**
   * With `original` (what `content` was rewritten from), also reports the items of it that `content` lost.
   * Rejects only as a check without a judge does (or ClientAbortedError): a failed judge is the verdict's `judge.error`.
   */
  async check(accountId: string, body: CheckRequest, signal: AbortSignal): Promise<CheckResult> {
    const target = body.judge && this.judge.target(body.judge);
    const persona = await this.personas.get(accountId, body.personaId, body);
    const preserved = body.original === undefined ? undefined : originalFor(persona.rules, body.original);
    const violations = checkText(persona.rules, body.content, preserved).map(({ rule, severity, message, start, end, term }) => ({
      rule,
      severity,
      message,
      start,
      end,
      ...(term === undefined ? {} : { term }),
    }));
    const warnings = persona.invalid.map(({ key, message }) => ({ attribute: key, message: `${message}; it is ignored until fixed` }));
    const judgement = target
      ? await this.judge.judge({ accountId, target, persona, signal, timeoutMs: this.timeoutMs, scrubber: new SecretScrubber([target.apiKey]) }, body.content)
      : undefined;
    const { score, scores } = scoreOf(violations, preserved, judgement?.verdict);
    const passed = passes(violations, score, persona.minScore);
    this.answers.answered({
      accountId, personaId: body.personaId, version: persona.version, minScore: persona.minScore, score, findings: violations, endpoint: 'check',
      inputTokens: judgement?.usage.inputTokens ?? 0, outputTokens: judgement?.usage.outputTokens ?? 0,
    });
    const verdict: CheckVerdict = { passed, score, scores, violations, warnings, ...(judgement ? { judge: judgement.verdict } : {}) };
    const variant = persona.variant === undefined ? {} : { personaVariant: persona.variant };
    return { verdict, personaVersion: persona.version, ...variant, ...(judgement ? { usage: judgement.usage } : {}) };
  }
}
