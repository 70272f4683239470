/**
 * `eval --persona ID --provider P`: runs an evaluation of one persona version on the persona's
 * samples, shows its progress, prints one row per sample, and exits by the bars it was given and
 * the baseline run: a CI gate for personas kept as code.
 */
import type { EvalComparison, EvalResult, EvalRunWithResults, StartEvalInput } from '../index.js';
import { parseCommand, positiveInteger, shareOf, wholeNumberIn } from './args.js';
import { EXIT_BELOW_BAR } from './exit-codes.js';
import { scoreColumns, scoreRow } from './findings.js';
import { type CliContext, UsageError, checkKeyVariable } from './io.js';
import { type BatchCounts, Progress } from './progress.js';
import { PROVIDER_KEY_VARIABLE, providerKeyFor } from './refine-command.js';
import { formatTable } from './table.js';

/** A run refines every sample, each up to the provider's timeout: the stream may stay open far longer than one call. */
const RUN_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const COLUMNS = scoreColumns('sample');

export async function evalCommand(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, {
    persona: { type: 'string' },
    version: { type: 'string' },
    label: { type: 'string' },
    provider: { type: 'string' },
    model: { type: 'string' },
    'provider-key-env': { type: 'string' },
    judge: { type: 'boolean' },
    concurrency: { type: 'string' },
    'min-score': { type: 'string' },
    'min-pass-rate': { type: 'string' },
    baseline: { type: 'string' },
  });
  const { persona, provider, label, model, baseline } = values;
  if (positionals.length > 0) throw new UsageError('eval takes only options');
  if (!persona) throw new UsageError('--persona ID is required');
  if (!provider) throw new UsageError('--provider NAME is required (e.g. openai, anthropic, rules)');
  if (values.version !== undefined && label !== undefined) throw new UsageError('--version and --label cannot be used together');
  const bars = {
    score: values['min-score'] === undefined ? undefined : wholeNumberIn(values['min-score'], '--min-score', 0, 100),
    passRate: values['min-pass-rate'] === undefined ? undefined : shareOf(values['min-pass-rate'], '--min-pass-rate'),
  };
  const keyVariable = values['provider-key-env'] ?? PROVIDER_KEY_VARIABLE;
  const offeredKey = context.io.env[keyVariable];
  if (offeredKey) checkKeyVariable(keyVariable, offeredKey);
  const providerApiKey = await providerKeyFor(provider, keyVariable, context);
  const input: StartEvalInput = {
    provider,
    ...(providerApiKey ? { providerApiKey } : {}),
    ...(model ? { model } : {}),
    ...(values.version !== undefined ? { version: positiveInteger(values.version, '--version') } : {}),
    ...(label !== undefined ? { label } : {}),
    ...(values.judge ? { judge: true as const } : {}),
    ...(values.concurrency !== undefined ? { concurrency: positiveInteger(values.concurrency, '--concurrency') } : {}),
  };

  const { io } = context;
  const client = context.client();
  const [started, { samples }] = await Promise.all([client.evals.start(persona, input), client.personas.samples.get(persona)]);
  io.stderr.write(`evaluation ${started.id}: version ${started.version} of persona ${persona}, ${started.progress.total} samples, ${provider}${started.model ? `/${started.model}` : ''}\n`);
  const names = new Map(samples.map((sample) => [sample.id, sample.name ?? sample.id]));
  await follow(persona, started.id, started.progress.total, names, context);

  const run = await client.evals.get(persona, started.id);
  io.stdout.write(formatTable(COLUMNS, run.results.map((result) => rowOf(result, names))));
  for (const line of unmetExpectations(run.results, names)) io.stdout.write(`${line}\n`);
  const comparison = baseline === undefined ? undefined : await client.evals.compare(persona, baseline, run.id);
  const verdict = verdictOf(run, bars, comparison, names);
  for (const line of verdict.lines) io.stdout.write(`${line}\n`);
  if (run.status !== 'completed') return 1;
  return verdict.belowBar ? EXIT_BELOW_BAR : 0;
}

/** The run's events until its end: a bar on a terminal, one line per sample in a log. */
async function follow(persona: string, evalId: string, total: number, names: Map<string, string>, { io, client }: CliContext): Promise<void> {
  const progress = new Progress(io.stderr, total);
  const counts: BatchCounts = { done: 0, failed: 0, retried: 0 };
  for await (const { event, data } of client().evals.events(persona, evalId, { timeoutMs: RUN_TIMEOUT_MS })) {
    if (event === 'result') {
      if (data.error) counts.failed++;
      else counts.done++;
      if (!progress.live || data.error) progress.line(`${outcomeOf(data)}  ${names.get(data.sampleId) ?? data.sampleId}${data.error ? `: ${data.error.message}` : ''}`);
      progress.update(counts);
    } else if (event === 'done' || event === 'error') {
      progress.finish();
      if (event === 'error') io.stderr.write(`the evaluation ended ${data.status}: ${data.message}\n`);
    }
  }
}

const outcomeOf = (result: EvalResult) => (result.error ? 'failed ' : result.passed ? 'passed ' : 'short  ');

function rowOf(result: EvalResult, names: Map<string, string>): string[] {
  const name = names.get(result.sampleId) ?? result.sampleId;
  if (result.error || result.scores === null || result.score === null) return scoreRow(name, { error: result.error?.message ?? 'no answer' });
  return scoreRow(name, { score: result.score, scores: result.scores, passed: result.passed, violations: result.violations });
}

/** A line per sample that missed its `expect`, naming each term: the table's `no` alone would not say why. */
function unmetExpectations(results: readonly EvalResult[], names: Map<string, string>): string[] {
  return results.flatMap((result) => {
    const unmet = (result.expectations ?? []).filter((outcome) => !outcome.met);
    if (unmet.length === 0) return [];
    const terms = unmet.map((outcome) => ('contains' in outcome ? `missing ${JSON.stringify(outcome.contains)}` : `contains ${JSON.stringify(outcome.notContains)}`));
    return [`${names.get(result.sampleId) ?? result.sampleId}: expect not met: ${terms.join(', ')}`];
  });
}

interface Bars {
  score: number | undefined;
  passRate: number | undefined;
}

/** The summary against the bars and the baseline, in lines, and whether the run falls short of any of them. */
function verdictOf(run: EvalRunWithResults, bars: Bars, comparison: EvalComparison | undefined, names: Map<string, string>): { lines: string[]; belowBar: boolean } {
  const { summary } = run;
  const lines: string[] = [];
  let belowBar = false;
  const against = (value: number | null, bar: number | undefined) => {
    if (bar === undefined) return '';
    const met = value !== null && value >= bar;
    belowBar ||= !met;
    return met ? ` (bar ${bar}: met)` : ` (bar ${bar}: BELOW)`;
  };
  lines.push(`status ${run.status}; ${run.progress.done} of ${run.progress.total} samples`);
  lines.push(`score ${summary.score ?? '-'}${against(summary.score, bars.score)}`);
  lines.push(`pass rate ${summary.passRate}${against(summary.passRate, bars.passRate)}`);
  if (comparison) {
    lines.push(`against ${comparison.base}: ${comparison.regressions.length === 0 ? 'no regression' : `${comparison.regressions.length} regression${comparison.regressions.length === 1 ? '' : 's'}`}`);
    for (const regression of comparison.regressions) {
      const side = (scored: { score: number | null; passed: boolean } | null) => (scored === null ? 'absent' : `${scored.score ?? 'failed'} ${scored.passed ? 'passed' : 'not passed'}`);
      lines.push(`  ${names.get(regression.sampleId) ?? regression.sampleId}: ${side(regression.base)} → ${side(regression.head)}`);
    }
    belowBar ||= comparison.regressions.length > 0;
  }
  return { lines, belowBar };
}
