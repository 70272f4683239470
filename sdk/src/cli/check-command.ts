/**
 * `check FILE… --persona ID`: every file scored against the persona, as one table, and an exit
 * code a CI job can gate on: docs and templates that drifted from the voice fail the build.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CheckResult } from '../index.js';
import { parseCommand, wholeNumberIn } from './args.js';
import { forEachBounded } from './bounded-pool.js';
import { describeError } from './describe-error.js';
import { EXIT_BELOW_BAR } from './exit-codes.js';
import { scoreColumns, scoreRow } from './findings.js';
import { type CliContext, UsageError, checkKeyVariable } from './io.js';
import { type BatchCounts, Progress } from './progress.js';
import { formatTable } from './table.js';

/** Checks without a judge cost no provider call; with one, this many run at once. */
const CONCURRENCY = 4;

const COLUMNS = scoreColumns('file');

type Outcome = { file: string; verdict: CheckResult; passed: boolean } | { file: string; error: unknown };

export async function checkCommand(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals: files } = parseCommand(args, {
    persona: { type: 'string' },
    'min-score': { type: 'string' },
    'judge-provider': { type: 'string' },
    'judge-model': { type: 'string' },
    'judge-key-env': { type: 'string' },
  });
  const personaId = values.persona;
  if (!personaId) throw new UsageError('--persona ID is required');
  if (files.length === 0) throw new UsageError('check needs at least one FILE to score');
  const minScore = values['min-score'] === undefined ? undefined : wholeNumberIn(values['min-score'], '--min-score', 0, 100);
  const judge = judgeFrom(values['judge-provider'], values['judge-model'], values['judge-key-env'], io.env);

  const outcomes = new Map<string, Outcome>();
  const counts: BatchCounts = { done: 0, failed: 0, retried: 0 };
  const progress = new Progress(io.stderr, files.length);
  await forEachBounded(files, CONCURRENCY, async (file) => {
    try {
      const content = await readFile(resolve(io.cwd, file), 'utf8');
      const verdict = await client().check({ personaId, content, ...(judge ? { judge } : {}) });
      // The service's verdict holds the persona's own bar (minScore); --min-score adds the caller's.
      outcomes.set(file, { file, verdict, passed: verdict.passed && (minScore === undefined || verdict.score >= minScore) });
      counts.done++;
    } catch (error) {
      outcomes.set(file, { file, error });
      counts.failed++;
    }
    progress.update(counts);
  });
  progress.finish();

  const ordered = files.map((file) => outcomes.get(file)!);
  io.stdout.write(formatTable(COLUMNS, ordered.map(rowOf)));
  const warned = ordered.find((outcome) => 'verdict' in outcome && outcome.verdict.warnings.length > 0);
  if (warned && 'verdict' in warned) {
    for (const warning of warned.verdict.warnings) io.stderr.write(`note: the persona's ${warning.attribute} is ignored: it must be ${warning.message}\n`);
  }
  // Every file was judged against the same persona: its having nothing to rate is said once.
  const unrated = ordered.map((outcome) => ('verdict' in outcome && outcome.verdict.judge && 'warning' in outcome.verdict.judge ? outcome.verdict.judge.warning : undefined)).find(Boolean);
  if (unrated) io.stderr.write(`note: the voice was not judged: ${unrated}\n`);
  for (const outcome of ordered) {
    if ('verdict' in outcome && outcome.verdict.judge && 'error' in outcome.verdict.judge) io.stderr.write(`note: ${outcome.file} was not judged: ${outcome.verdict.judge.error}\n`);
  }
  const passed = ordered.filter((outcome) => 'verdict' in outcome && outcome.passed).length;
  const below = counts.done - passed;
  const bar = minScore === undefined ? '' : ` (--min-score ${minScore})`;
  io.stderr.write(`${files.length} file${files.length === 1 ? '' : 's'}: ${passed} passed, ${below} did not pass${bar}, ${counts.failed} could not be checked\n`);
  if (counts.failed > 0) return 1;
  return below > 0 ? EXIT_BELOW_BAR : 0;
}

/**
 * The judge from `--judge-provider` and the variable `--judge-key-env` names: the key is never an
 * argument (shell history, `ps`) and is never printed; a missing or pasted-over one is a usage error.
 */
function judgeFrom(provider: string | undefined, model: string | undefined, keyVariable: string | undefined, env: Record<string, string | undefined>) {
  if (provider === undefined) {
    if (keyVariable !== undefined || model !== undefined) throw new UsageError('--judge-key-env and --judge-model need --judge-provider');
    return undefined;
  }
  if (keyVariable === undefined) throw new UsageError('--judge-provider needs --judge-key-env VAR, naming the variable that holds the judge\'s key');
  const providerApiKey = env[keyVariable];
  if (!providerApiKey) throw new UsageError(`set ${keyVariable} to your key for the judge's provider "${provider}"`);
  checkKeyVariable(keyVariable, providerApiKey);
  return { provider, providerApiKey, ...(model ? { model } : {}) };
}

function rowOf(outcome: Outcome): string[] {
  if ('error' in outcome) return scoreRow(outcome.file, { error: describeError(outcome.error) });
  return scoreRow(outcome.file, { ...outcome.verdict, passed: outcome.passed });
}
