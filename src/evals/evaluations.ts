/**
 * The evaluation use cases (docs/evaluations.md): start a run of a persona
 * version over its samples, read, list, cancel and compare runs, and follow a
 * run's events. Everything but the execution reads the database, so any
 * instance answers for a run another one executes.
 */
import { DomainError, invalidRequest, notFound, rateLimited } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { unknownVariant, variantNames } from '../personas/variants.js';
import type { CompiledPersonas } from '../refine/compiled-personas.js';
import type { RefineService } from '../refine/refine-service.js';
import { RULES_PROVIDER } from '../refine/refine-service.js';
import type { JudgeRequest } from '../scoring/judge-verdict.js';
import type { CompletedEvaluationOf } from '../personas/label-policies.js';
import { isPersonaId, personaNotFound, type PersonaService } from '../personas/persona-service.js';
import type { Actor } from '../storage/change-log.js';
import type { EvalRepository, EvalRunRow } from '../storage/eval-repository.js';
import {
  ACTIVE_STATUSES,
  compareRuns,
  type EvalComparison,
  type EvalJudgeSetting,
  type EvalResult,
  type EvalRun,
  type EvalRunWithResults,
  type EvalStatus,
  type EvalSummary,
  emptyUsage,
} from './evaluation.js';
import type { EvalRunner, RefineAdmission } from './eval-runner.js';
import type { EvalSamples } from './samples.js';

/** Runs in flight at once per account, across instances (docs/evaluations.md, "Limits"). */
export const MAX_ACTIVE_RUNS = 2;
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;
export const EVALS_PAGE_SIZE = 100;
/** How often an events stream asks the database what changed (docs/evaluations.md, "Events"). */
export const EVENTS_POLL_MS = 500;

export interface StartEval {
  version?: number;
  label?: string;
  /** One of the version's `variants`; a sample naming its own uses that one. */
  variant?: string;
  provider: string;
  providerApiKey?: string;
  model?: string;
  /** A judge with its own provider and key, or `true`: the run's provider, key and model. */
  judge?: JudgeRequest | true;
  concurrency?: number;
}

export interface EvalPage {
  runs: EvalRun[];
  nextCursor: string | undefined;
  limit: number;
}

export type EvalEvent =
  | { event: 'progress'; data: { done: number; total: number } }
  | { event: 'result'; data: EvalResult }
  | { event: 'done'; data: { status: 'completed'; summary: EvalSummary } }
  | { event: 'error'; data: { status: EvalStatus; message: string; summary: EvalSummary } };

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const evalNotFound = (personaId: string, id: string) =>
  notFound(ID_SHAPE.test(id) ? `evaluation "${id}" of persona "${personaId}" not found` : 'evaluation not found');

const isTerminal = (status: EvalStatus) => !ACTIVE_STATUSES.includes(status);

/** A summary stored before `failedExpectations` was counted says it is not known. */
function storedSummary(text: string): EvalSummary {
  const summary = JSON.parse(text) as Partial<EvalSummary> & Omit<EvalSummary, 'failedExpectations'>;
  return { ...summary, failedExpectations: summary.failedExpectations ?? null };
}

function toRun(row: EvalRunRow): EvalRun {
  return {
    id: row.id,
    personaId: row.persona_id,
    version: row.version,
    ...(row.variant === null ? {} : { variant: row.variant }),
    status: row.status,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    provider: row.provider,
    model: row.model,
    judge: row.judge === null ? null : (JSON.parse(row.judge) as EvalJudgeSetting),
    concurrency: row.concurrency,
    progress: { done: row.done, total: row.total },
    summary: storedSummary(row.summary),
    error: row.error,
  };
}

/** Why a run that ended without completing ended, for its `error` event. */
function endMessage(run: EvalRun): string {
  if (run.status === 'cancelled') return run.error ?? 'the evaluation was cancelled; what finished is kept';
  return run.error ?? `the evaluation ended ${run.status}`;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

/** What a label gate weighs of a completed run (docs/evaluations.md, "Gated labels"). */
export const completedEvaluation: CompletedEvaluationOf = (row) => {
  const { score, passRate, errored } = JSON.parse(row.summary) as EvalSummary;
  // What the run proves of a model: nothing when no model was called, too little when a sample went unanswered.
  const unfit =
    row.provider === RULES_PROVIDER
      ? `was made with provider "${RULES_PROVIDER}", which calls no model, and meets no gate`
      : errored > 0
        ? `has ${errored} errored sample${errored === 1 ? '' : 's'} of ${row.total}, and a run with an errored sample meets no gate`
        : null;
  return { id: row.id, score, passRate, finishedAt: row.finished_at ?? row.created_at, unfit };
};

export class Evaluations {
  constructor(
    private readonly runs: EvalRepository,
    private readonly runner: EvalRunner,
    private readonly samples: EvalSamples,
    private readonly personas: PersonaService,
    private readonly compiled: CompiledPersonas,
    private readonly refine: RefineService,
  ) {}

  async start(actor: Actor, personaId: string, body: StartEval, admission: RefineAdmission): Promise<EvalRun> {
    this.checkRequest(body);
    if (!isPersonaId(personaId)) throw personaNotFound(personaId);
    const pin = { personaVersion: body.version, personaLabel: body.label };
    const base = await this.compiled.get(actor.accountId, personaId, pin);
    const samples = await this.samples.current(personaId);
    if (samples.length === 0) throw invalidRequest(`persona "${personaId}" has no samples to evaluate; PUT /v1/personas/${personaId}/samples first`);
    // Every variant the run will ask for is checked now, so a typo is a 400 rather than a run of failed samples.
    const known = variantNames(base.attributes);
    for (const variant of new Set([body.variant, ...samples.map((sample) => sample.variant)])) {
      if (variant !== undefined && !known.includes(variant)) throw unknownVariant(personaId, variant, known);
    }
    const persona = body.variant === undefined ? base : await this.compiled.get(actor.accountId, personaId, { personaVersion: base.version, variant: body.variant });
    const model = body.model ?? this.refine.listProviders().find((info) => info.id === body.provider)?.defaultModel ?? null;
    // Named as each sample's refine will resolve it: the judge's model, or the run's own for `judge: true`.
    const target = this.refine.judgeTarget(body);
    const judge: EvalJudgeSetting | null = target ? { provider: target.provider, model: target.model } : null;
    const now = new Date().toISOString();
    const row: EvalRunRow = {
      id: uuidv7(),
      account_id: actor.accountId,
      persona_id: personaId,
      version: persona.version,
      variant: body.variant ?? null,
      status: 'queued',
      provider: body.provider,
      model,
      judge: judge === null ? null : JSON.stringify(judge),
      concurrency: body.concurrency ?? DEFAULT_CONCURRENCY,
      total: samples.length,
      done: 0,
      summary: JSON.stringify({ score: null, passRate: 0, minScore: persona.minScore ?? null, errored: 0, violations: {}, failedExpectations: 0, usage: emptyUsage() } satisfies EvalSummary),
      error: null,
      created_at: now,
      finished_at: null,
      created_by: actor.keyId,
      owner: this.runner.owner,
      heartbeat_at: now,
    };
    if (!(await this.runs.insertWithinCap(row, MAX_ACTIVE_RUNS))) {
      throw rateLimited(`this account already has ${MAX_ACTIVE_RUNS} evaluations running, the most it may have at once; retry when one ends`, 5);
    }
    const { providerApiKey, provider, model: asked } = body;
    this.runner.start({
      evalId: row.id,
      accountId: actor.accountId,
      keyId: actor.keyId,
      personaId,
      version: persona.version,
      minScore: persona.minScore,
      samples,
      concurrency: row.concurrency,
      refine: {
        provider,
        ...(body.variant === undefined ? {} : { variant: body.variant }),
        ...(providerApiKey === undefined ? {} : { providerApiKey }),
        ...(asked === undefined ? {} : { model: asked }),
        ...(body.judge === undefined ? {} : { judge: body.judge }),
      },
      admission,
    });
    return toRun(row);
  }

  async get(accountId: string, personaId: string, id: string): Promise<EvalRunWithResults> {
    const row = await this.row(accountId, personaId, id);
    const results = (await this.runs.results(id))
      .sort((a, b) => a.position - b.position)
      .map((result) => JSON.parse(result.result) as EvalResult);
    return { ...toRun(row), results };
  }

  async list(accountId: string, personaId: string, page: { limit?: number; cursor?: string }): Promise<EvalPage> {
    await this.personas.get(accountId, personaId);
    const limit = page.limit ?? EVALS_PAGE_SIZE;
    // One extra row tells whether there is a next page without a second query.
    const rows = await this.runs.list(accountId, personaId, { beforeId: page.cursor, limit: limit + 1 });
    const runs = rows.slice(0, limit).map(toRun);
    return { runs, nextCursor: rows.length > limit ? runs[runs.length - 1]?.id : undefined, limit };
  }

  /** Stops a run in flight, on whichever instance runs it; what finished is kept. A run that ended already: 409. */
  async cancel(actor: Actor, personaId: string, id: string): Promise<EvalRun> {
    const row = await this.row(actor.accountId, personaId, id);
    const cancelled = await this.runs.finish(id, { status: 'cancelled', error: null, at: new Date().toISOString(), accountId: actor.accountId });
    if (!cancelled) {
      const now = await this.row(actor.accountId, personaId, id);
      throw new DomainError('conflict', `evaluation "${id}" already ended (${now.status}); only a queued or running one can be cancelled`);
    }
    // Here at once; on another instance at its next heartbeat.
    this.runner.stop(row.id);
    return toRun(await this.row(actor.accountId, personaId, id));
  }

  async compare(accountId: string, personaId: string, baseId: string, headId: string): Promise<EvalComparison> {
    const [base, head] = await Promise.all([this.get(accountId, personaId, baseId), this.get(accountId, personaId, headId)]);
    return compareRuns(base, head);
  }

  /**
   * The run's events: first what happened so far (each stored result, then the progress),
   * then what happens, read from the database every EVENTS_POLL_MS; the last is `done`
   * (completed) or `error` (failed, cancelled, interrupted). The run is looked up before
   * this resolves, so an unknown one is an ordinary 404.
   */
  async events(accountId: string, personaId: string, id: string, signal: AbortSignal): Promise<AsyncGenerator<EvalEvent>> {
    await this.row(accountId, personaId, id);
    const { runs } = this;
    const read = () => this.row(accountId, personaId, id);
    return (async function* follow(): AsyncGenerator<EvalEvent> {
      let seen = 0;
      let first = true;
      while (!signal.aborted) {
        // The status first: a run ended before its results were read has all of them written.
        const run = toRun(await read());
        const results = await runs.results(id, seen);
        for (const result of results) {
          seen = result.seq;
          yield { event: 'result', data: JSON.parse(result.result) as EvalResult };
        }
        if (first || results.length > 0) yield { event: 'progress', data: { done: seen, total: run.progress.total } };
        first = false;
        if (isTerminal(run.status)) {
          if (run.status === 'completed') yield { event: 'done', data: { status: 'completed', summary: run.summary } };
          else yield { event: 'error', data: { status: run.status, message: endMessage(run), summary: run.summary } };
          return;
        }
        await sleep(EVENTS_POLL_MS, signal);
      }
    })();
  }

  private async row(accountId: string, personaId: string, id: string): Promise<EvalRunRow> {
    if (!isPersonaId(personaId)) throw personaNotFound(personaId);
    const row = ID_SHAPE.test(id) ? await this.runs.find(accountId, personaId, id) : undefined;
    if (row) return row;
    await this.personas.get(accountId, personaId);
    throw evalNotFound(personaId, id);
  }

  /** What needs no I/O: the version or the label, the provider ids and keys. */
  private checkRequest(body: StartEval): void {
    if (body.version !== undefined && body.label !== undefined) throw invalidRequest('give version or label, not both');
    const ids = this.refine.providerIds();
    const known = (id: string) => ids.includes(id);
    const unknown = (field: string, id: string) => invalidRequest(`${field}: unknown provider "${id.slice(0, 64)}"; supported: ${ids.join(', ')}`);
    if (!known(body.provider)) throw unknown('provider', body.provider);
    if (body.provider !== RULES_PROVIDER && body.providerApiKey === undefined) {
      throw invalidRequest(`providerApiKey is required for provider "${body.provider}"`);
    }
    if (body.judge === undefined) return;
    const judgeProvider = body.judge === true ? body.provider : body.judge.provider;
    if (judgeProvider === RULES_PROVIDER) throw invalidRequest('judge needs a provider that calls a model; "rules" cannot judge');
    if (body.judge !== true && !known(body.judge.provider)) throw unknown('judge.provider', body.judge.provider);
  }
}
