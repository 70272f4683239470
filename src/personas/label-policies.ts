/**
 * Label policies (docs/keys-and-scopes.md, "Protected labels"): a protected label
 * can be moved or removed only by a key with `labels:protected`. `production`
 * is protected unless its policy says otherwise. A policy's evaluation
 * thresholds (minScore, minPassRate, maxAgeDays) gate every move of the label
 * to a version on a completed evaluation of that version (docs/evaluations.md,
 * "Gated labels").
 */
import { DomainError, lacksScope, notFound } from '../errors.js';
import type { Actor } from '../storage/change-log.js';
import type { EvalRunRow } from '../storage/eval-repository.js';
import type { LabelPolicyRepository, LabelPolicyRow } from '../storage/label-policy-repository.js';
import type { LabelGate } from '../storage/persona-history-repository.js';
import { isProtected, LabelRefused, PROTECTED_BY_DEFAULT, type ProtectedLabelRight } from './labels.js';
import { checkLabelName } from './persona-history.js';
import { personaNotFound, type PersonaService } from './persona-service.js';

/** A label's policy, as GET/PUT …/labels/{label}/policy answer it. */
export interface LabelPolicy {
  label: string;
  protected: boolean;
  /** A move to version v needs a completed evaluation of v at least this good, at most maxAgeDays old. */
  minScore: number | null;
  minPassRate: number | null;
  maxAgeDays: number | null;
  /** No policy was set: the default applies. */
  isDefault: boolean;
}

/** What PUT …/policy accepts; `protected` left out keeps the label's current protection. */
export interface LabelPolicyChange {
  protected?: boolean;
  minScore?: number | null;
  minPassRate?: number | null;
  maxAgeDays?: number | null;
}

/** A completed evaluation, as a label gate weighs it. */
export interface CompletedEvaluation {
  id: string;
  /** Null when no sample was answered. */
  score: number | null;
  passRate: number;
  finishedAt: string;
  /** Why this run meets no gate whatever it scored, as a 409 says it of the latest run; null when it may meet one. */
  unfit: string | null;
}

/** A completed run's row as a gate weighs it (evals/ owns what a run's summary holds). */
export type CompletedEvaluationOf = (row: EvalRunRow) => CompletedEvaluation;

const DAY_MS = 86_400_000;

function toPolicy(label: string, row: LabelPolicyRow | undefined): LabelPolicy {
  return {
    label,
    protected: isProtected(label, row?.protected),
    minScore: row?.min_score ?? null,
    minPassRate: row?.min_pass_rate ?? null,
    maxAgeDays: row?.max_age_days ?? null,
    isDefault: row === undefined,
  };
}

export class LabelPolicies {
  constructor(
    private readonly policies: LabelPolicyRepository,
    private readonly personas: PersonaService,
    private readonly evaluationOf: CompletedEvaluationOf,
  ) {}

  async get(accountId: string, personaId: string, label: string): Promise<LabelPolicy> {
    checkLabelName(label, { allowLatest: false });
    await this.personas.get(accountId, personaId);
    return toPolicy(label, await this.policies.find(personaId, label));
  }

  /** The policy of each label given, of each label that has one, and of `production` (protected by default). */
  async forLabels(personaId: string, labels: readonly string[]): Promise<Record<string, LabelPolicy>> {
    const stored = new Map((await this.policies.forPersona(personaId)).map((row) => [row.label, row]));
    const names = [...new Set([...labels, ...stored.keys(), ...PROTECTED_BY_DEFAULT])].sort();
    return Object.fromEntries(names.map((label) => [label, toPolicy(label, stored.get(label))]));
  }

  /** Replaces the policy; `protected` left out keeps the label's current protection. */
  async put(actor: Actor, personaId: string, label: string, body: LabelPolicyChange): Promise<LabelPolicy> {
    const current = await this.get(actor.accountId, personaId, label);
    const row: LabelPolicyRow = {
      persona_id: personaId,
      label,
      protected: (body.protected ?? current.protected) ? 1 : 0,
      min_score: body.minScore ?? null,
      min_pass_rate: body.minPassRate ?? null,
      max_age_days: body.maxAgeDays ?? null,
      updated_at: new Date().toISOString(),
    };
    if (!(await this.policies.put({ ...actor, at: row.updated_at }, row))) throw personaNotFound(personaId);
    return toPolicy(label, row);
  }

  /** Back to the default (`production` protected, other labels not). */
  async remove(actor: Actor, personaId: string, label: string): Promise<void> {
    await this.get(actor.accountId, personaId, label);
    if (!(await this.policies.remove({ ...actor, at: new Date().toISOString() }, personaId, label))) {
      throw notFound(`label "${label}" of persona "${personaId}" has no policy`);
    }
  }

  /**
   * The gate of a label's move or removal, which the label write runs in its transaction (see
   * LabelGate): a protected label needs `labels:protected`; a move to `toVersion` of a label whose
   * policy sets evaluation thresholds needs a completed evaluation of that version meeting them,
   * else 409. Answers the evaluation that allowed the move, for its audit event.
   */
  gate(label: string, move: { protectedRight: ProtectedLabelRight; toVersion?: number }): LabelGate {
    return async (reads) => {
      const policy = toPolicy(label, await reads.policy());
      if (policy.protected) {
        if (!move.protectedRight.granted) throw lacksScope('labels:protected');
        move.protectedRight.used();
      }
      if (move.toVersion === undefined || (policy.minScore === null && policy.minPassRate === null && policy.maxAgeDays === null)) return undefined;
      return this.judge(label, move.toVersion, policy, (await reads.completedRuns(move.toVersion)).map(this.evaluationOf));
    };
  }

  /** The evaluation that allows the move to `version`, or a 409 saying what is needed. */
  private judge(label: string, version: number, policy: LabelPolicy, runs: CompletedEvaluation[]): string {
    const oldest = policy.maxAgeDays === null ? undefined : new Date(Date.now() - policy.maxAgeDays * DAY_MS).toISOString();
    const meets = (run: CompletedEvaluation) =>
      run.unfit === null &&
      (oldest === undefined || run.finishedAt >= oldest) &&
      (policy.minScore === null || (run.score !== null && run.score >= policy.minScore)) &&
      (policy.minPassRate === null || run.passRate >= policy.minPassRate);
    const allowing = runs.find(meets);
    if (allowing) return allowing.id;
    throw new LabelRefused(label, version, gateMessage(label, version, policy, runs[0], oldest));
  }
}

/** `label "production" needs an evaluation of version 4 with score ≥ 80 and pass rate ≥ 0.9; the latest, <id>, scored 72`. */
function gateMessage(label: string, version: number, policy: LabelPolicy, latest: CompletedEvaluation | undefined, oldest: string | undefined): string {
  const bars = [
    ...(policy.minScore === null ? [] : [`score ≥ ${policy.minScore}`]),
    ...(policy.minPassRate === null ? [] : [`pass rate ≥ ${policy.minPassRate}`]),
  ];
  const age = policy.maxAgeDays === null ? '' : ` from the last ${policy.maxAgeDays} day${policy.maxAgeDays === 1 ? '' : 's'}`;
  const needs = `label "${label}" needs an evaluation of version ${version}${bars.length ? ` with ${bars.join(' and ')}` : ''}${age}`;
  if (!latest) return `${needs}; none exists`;
  if (latest.unfit !== null) return `${needs}; the latest, ${latest.id}, ${latest.unfit}`;
  if (oldest !== undefined && latest.finishedAt < oldest) return `${needs}; the latest, ${latest.id}, finished ${latest.finishedAt}`;
  const scored = latest.score === null ? 'answered no sample' : `scored ${latest.score}`;
  const scoreFell = policy.minScore !== null && (latest.score === null || latest.score < policy.minScore);
  return `${needs}; the latest, ${latest.id}, ${scored}${scoreFell || policy.minPassRate === null ? '' : ` with pass rate ${latest.passRate}`}`;
}
