/**
 * What an evaluation run is and says (docs/evaluations.md, "Runs"): its status,
 * each sample's result, and the summary over them. Pure; storage and the runner
 * build on these.
 */
import type { Severity } from '../rules/index.js';
import type { JudgeVerdict } from '../scoring/judge-verdict.js';
import { passes, type SubScores } from '../scoring/persona-score.js';
import type { SampleExpectation } from './samples.js';

export const EVAL_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type EvalStatus = (typeof EVAL_STATUSES)[number];
/** A run in one of these is in flight: it counts against the account's bound and may still change. */
export const ACTIVE_STATUSES: readonly EvalStatus[] = ['queued', 'running'];

export interface EvalViolation {
  rule: string;
  severity: Severity;
  message: string;
  start: number;
  end: number;
}

/** One term of a sample's `expect`, and whether the answer met it (docs/evaluations.md, "Runs"). */
export type ExpectationOutcome = { contains: string; met: boolean } | { notContains: string; met: boolean };

export interface EvalResult {
  sampleId: string;
  /** Null when the sample failed (see `error`). */
  response: string | null;
  score: number | null;
  scores: SubScores | null;
  violations: EvalViolation[];
  /** No required finding, `expect` met, at or above the persona's `minScore`; false for a failed sample. */
  passed: boolean;
  /**
   * Every term of the sample's `expect`, met or not, so a sample failed by it says which; empty
   * without `expect` or an answer. Absent from results stored before it was reported.
   */
  expectations?: ExpectationOutcome[];
  /** The judge's verdict as the refine reported it (docs/voice-score.md, "The formula"). */
  judge?: JudgeVerdict;
  /** Why this sample has no answer, as the refine's own error would have said it. */
  error?: { error: number; message: string };
}

export interface EvalUsage {
  inputTokens: number;
  outputTokens: number;
  providerCalls: number;
}

export interface EvalSummary {
  /** Mean score of the samples that were answered (one decimal); null when none was. */
  score: number | null;
  /** Share of the results so far that passed (four decimals); a failed sample did not pass. */
  passRate: number;
  /** The persona version's `minScore`, the bar `passed` used; null when it sets none. */
  minScore: number | null;
  /** Results that are errors (no answer): a run with any meets no label gate (docs/evaluations.md, "Gated labels"). */
  errored: number;
  /** Rule id → findings left in the answers, over every result. */
  violations: Record<string, number>;
  /** Expectation terms the answers did not meet, over every result; null for a run stored before results reported them. */
  failedExpectations: number | null;
  usage: EvalUsage;
}

/** Which judge rated the answers; `judge: true` judges with the run's own provider and model. */
export interface EvalJudgeSetting {
  provider: string;
  model: string | null;
}

export interface EvalRun {
  id: string;
  personaId: string;
  version: number;
  /** The persona variant evaluated, when the run named one. */
  variant?: string;
  status: EvalStatus;
  createdAt: string;
  finishedAt: string | null;
  provider: string;
  model: string | null;
  /** The judge asked for, without its key; null when not judged. */
  judge: EvalJudgeSetting | null;
  concurrency: number;
  progress: { done: number; total: number };
  summary: EvalSummary;
  /** Why a failed run failed. */
  error: string | null;
}

export interface EvalRunWithResults extends EvalRun {
  /** In the order of the samples. */
  results: EvalResult[];
}

/** What a result adds to the summary beyond itself. */
export interface ScoredResult extends EvalResult {
  usage: EvalUsage;
}

export const emptyUsage = (): EvalUsage => ({ inputTokens: 0, outputTokens: 0, providerCalls: 0 });

export function summarize(results: readonly ScoredResult[], minScore: number | undefined): EvalSummary {
  const scored = results.filter((result) => result.score !== null);
  const violations: Record<string, number> = {};
  const usage = emptyUsage();
  for (const result of results) {
    for (const finding of result.violations) violations[finding.rule] = (violations[finding.rule] ?? 0) + 1;
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    usage.providerCalls += result.usage.providerCalls;
  }
  const mean = scored.length === 0 ? null : scored.reduce((sum, result) => sum + (result.score as number), 0) / scored.length;
  return {
    score: mean === null ? null : Math.round(mean * 10) / 10,
    passRate: results.length === 0 ? 0 : Math.round((results.filter((result) => result.passed).length / results.length) * 10_000) / 10_000,
    minScore: minScore ?? null,
    errored: results.filter((result) => result.error !== undefined).length,
    violations,
    failedExpectations: results.reduce((sum, result) => sum + (result.expectations ?? []).filter((outcome) => !outcome.met).length, 0),
    usage,
  };
}

/** Each `contains` term must be in the answer and each `notContains` term must not, compared as written; in that order. */
export function expectationOutcomes(expect: SampleExpectation | undefined, response: string): ExpectationOutcome[] {
  return [
    ...(expect?.contains ?? []).map((term) => ({ contains: term, met: response.includes(term) })),
    ...(expect?.notContains ?? []).map((term) => ({ notContains: term, met: !response.includes(term) })),
  ];
}

/** The persona score's own `passed` (docs/voice-score.md, "`passed` and `minScore`"), and every expectation met. */
export function samplePassed(violations: readonly EvalViolation[], score: number, minScore: number | undefined, expectations: readonly ExpectationOutcome[]): boolean {
  return passes(violations, score, minScore) && expectations.every((outcome) => outcome.met);
}

/** A score fall this large (or a pass turned fail) is a regression (docs/evaluations.md, "Compare"). */
export const REGRESSION_DROP = 10;

export interface ComparedSide {
  score: number | null;
  passed: boolean;
}

export interface ComparedSample {
  sampleId: string;
  /** Null when the sample is not in that run (added or removed in between). */
  base: ComparedSide | null;
  head: ComparedSide | null;
  /** head.score − base.score; null unless both were scored. */
  delta: number | null;
}

export interface EvalComparison {
  base: string;
  head: string;
  samples: ComparedSample[];
  regressions: ComparedSample[];
}

export function compareRuns(base: EvalRunWithResults, head: EvalRunWithResults): EvalComparison {
  const side = (result: EvalResult | undefined): ComparedSide | null => (result ? { score: result.score, passed: result.passed } : null);
  const baseById = new Map(base.results.map((result) => [result.sampleId, result]));
  const headIds = new Set(head.results.map((result) => result.sampleId));
  const ids = [...head.results.map((result) => result.sampleId), ...base.results.map((result) => result.sampleId).filter((id) => !headIds.has(id))];
  const samples = ids.map((sampleId) => {
    const before = side(baseById.get(sampleId));
    const after = side(head.results.find((result) => result.sampleId === sampleId));
    const delta = before?.score != null && after?.score != null ? after.score - before.score : null;
    return { sampleId, base: before, head: after, delta };
  });
  const regressions = samples.filter(
    (sample) => (sample.delta !== null && sample.delta <= -REGRESSION_DROP) || (sample.base?.passed === true && sample.head?.passed === false),
  );
  return { base: base.id, head: head.id, samples, regressions };
}
