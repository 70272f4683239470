/**
 * `refine`: stdin to stdout, or a batch of files into --out with bounded concurrency, progress
 * and a summary. The provider key comes only from the environment: an argument would end up in
 * shell history and in every `ps` listing.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RefineInput, RefineResult } from '../index.js';
import { parseCommand, positiveInteger } from './args.js';
import { forEachBounded } from './bounded-pool.js';
import { describeError } from './describe-error.js';
import { EXIT_BELOW_BAR, EXIT_STREAM_REPLACED } from './exit-codes.js';
import { type CliContext, UsageError, checkKeyVariable, readAll } from './io.js';
import { outputPaths } from './out-paths.js';
import { type BatchCounts, Progress } from './progress.js';
import { replaceFile } from './safe-files.js';

export const PROVIDER_KEY_VARIABLE = 'PERSONA_REFINE_PROVIDER_KEY';
const DEFAULT_CONCURRENCY = 4;

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

export async function refineCommand(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, {
    persona: { type: 'string' },
    provider: { type: 'string' },
    model: { type: 'string' },
    'provider-key-env': { type: 'string' },
    out: { type: 'string' },
    concurrency: { type: 'string' },
    stream: { type: 'boolean' },
  });
  const { persona, provider, model, out } = values;
  if (!persona) throw new UsageError('--persona ID is required');
  if (!provider) throw new UsageError('--provider NAME is required (e.g. openai, anthropic)');
  const keyVariable = values['provider-key-env'] ?? PROVIDER_KEY_VARIABLE;
  const concurrency = positiveInteger(values.concurrency ?? String(DEFAULT_CONCURRENCY), '--concurrency');
  const stdin = positionals.length === 0 || (positionals.length === 1 && positionals[0] === '-');
  if (values.stream && !stdin) throw new UsageError('--stream refines stdin only (files are written whole)');
  if (!stdin) {
    if (positionals.includes('-')) throw new UsageError('"-" (stdin) cannot be mixed with files');
    if (positionals.length > 1 && !out) throw new UsageError('--out DIR is needed to refine more than one file');
  }
  const targets = out && !stdin ? await outputPaths(positionals, out, context.io.cwd) : undefined;
  // Checked before any request, even the providers listing that decides whether it is needed.
  const offeredKey = context.io.env[keyVariable];
  if (offeredKey) checkKeyVariable(keyVariable, offeredKey);
  const providerApiKey = await providerKeyFor(provider, keyVariable, context);
  const requestFor = (content: string): RefineInput => ({
    provider,
    personaId: persona,
    content,
    ...(providerApiKey ? { providerApiKey } : {}),
    ...(model ? { model } : {}),
  });

  if (values.stream) return refineStreamed(requestFor(await readAll(context.io.stdin)), context);
  if (stdin) {
    const result = await context.client().refine(requestFor(await readAll(context.io.stdin)));
    context.io.stdout.write(withNewline(result.response));
    const broken = brokenRules(result.violations);
    if (broken) context.io.stderr.write(`rules still broken: ${broken}\n`);
    return broken ? EXIT_BELOW_BAR : 0;
  }
  return refineBatch(positionals, { out, targets, concurrency, requestFor }, context);
}

/**
 * The key from the environment when the service says the provider needs one; none otherwise
 * (`rules` applies the persona's rules without a model), so a key never leaves without a use.
 */
export async function providerKeyFor(provider: string, keyVariable: string, context: CliContext): Promise<string | undefined> {
  const offered = await context.client().providers();
  const chosen = offered.find((candidate) => candidate.id === provider);
  if (!chosen) throw new UsageError(`unknown provider "${provider}"; this service offers ${offered.map((candidate) => candidate.id).join(', ')}`);
  if (!chosen.requiresKey) return undefined;
  const key = context.io.env[keyVariable];
  if (!key) throw new UsageError(`set ${keyVariable} to your ${chosen.name} API key (or name another variable with --provider-key-env)`);
  return key;
}

/**
 * `--stream`: each piece to stdout as it arrives, then on stderr what `refine` alone would not
 * show (the text is already out, so a stream gets no repair call): rules still broken and tokens.
 */
async function refineStreamed(request: RefineInput, { io, client }: CliContext): Promise<number> {
  const stream = client().refineStream(request);
  let last = '';
  for await (const piece of stream) {
    io.stdout.write(piece);
    if (piece !== '') last = piece;
  }
  if (!last.endsWith('\n')) io.stdout.write('\n');
  const { violations, usage, replaced } = await stream.result;
  if (replaced) {
    // The pieces printed are not the result (a service bug). Printing the result after them would
    // leave a pipe with wrong text then right text: say so on stderr and fail with a code of its own.
    io.stderr.write(`note: the streamed text was not the final result; do not use it: refine again without --stream\n`);
  }
  const broken = brokenRules(violations);
  const tokens =
    usage.inputTokens === undefined || usage.outputTokens === undefined
      ? 'tokens not reported'
      : `${usage.inputTokens} input + ${usage.outputTokens} output tokens`;
  io.stderr.write(`${broken ? `rules still broken: ${broken}` : 'no rule broken'}; ${tokens}\n`);
  if (replaced) return EXIT_STREAM_REPLACED;
  return broken ? EXIT_BELOW_BAR : 0;
}

/** `avoid=1, maxWords=1`, or '' when every rule held. */
function brokenRules(violations: Record<string, number>): string {
  return Object.entries(violations)
    .filter(([, count]) => count > 0)
    .map(([rule, count]) => `${rule}=${count}`)
    .join(', ');
}

/** Tokens the provider reported for the files refined; a file whose provider reported none is counted apart. */
class TokenTotals {
  private input = 0;
  private output = 0;
  private unreported = 0;

  add(usage: RefineResult['usage']): void {
    if (usage.inputTokens === undefined || usage.outputTokens === undefined) this.unreported++;
    this.input += usage.inputTokens ?? 0;
    this.output += usage.outputTokens ?? 0;
  }

  toString(): string {
    const spent = `${this.input} input + ${this.output} output tokens`;
    return this.unreported === 0 ? spent : `${spent} (not reported for ${this.unreported} file${this.unreported === 1 ? '' : 's'})`;
  }
}

interface BatchOptions {
  out: string | undefined;
  /** Input → output path, when there is an --out DIR. */
  targets: Map<string, string> | undefined;
  concurrency: number;
  requestFor(content: string): RefineInput;
}

async function refineBatch(files: string[], options: BatchOptions, { io, client }: CliContext): Promise<number> {
  const { out, targets, concurrency, requestFor } = options;
  if (out) await mkdir(resolve(io.cwd, out), { recursive: true });
  const counts: BatchCounts = { done: 0, failed: 0, retried: 0 };
  let withBrokenRules = 0;
  const tokens = new TokenTotals();
  const progress = new Progress(io.stderr, files.length);
  progress.update(counts);

  await forEachBounded(files, concurrency, async (file) => {
    let retried = false;
    const onRetry = () => {
      if (!retried) counts.retried++;
      retried = true;
      progress.update(counts);
    };
    try {
      const content = await readFile(resolve(io.cwd, file), 'utf8');
      const result = await client({ onRetry }).refine(requestFor(content));
      const { response } = result;
      tokens.add(result.usage);
      const target = targets?.get(file);
      // Never through a symlink planted in --out: only a regular file (or none) is replaced.
      if (target) await replaceFile(resolve(io.cwd, target), withNewline(response));
      else io.stdout.write(withNewline(response));
      counts.done++;
      const broken = brokenRules(result.violations);
      if (broken) withBrokenRules++;
      // On a terminal the bar already counts successes; elsewhere each file gets its line. Broken rules always do.
      if (broken) progress.line(`broken  ${file}${target ? ` → ${target}` : ''}: rules still broken: ${broken}`);
      else if (!progress.live) progress.line(`done    ${file}${target ? ` → ${target}` : ''}`);
    } catch (error) {
      counts.failed++;
      progress.line(`failed  ${file}: ${describeError(error)}`);
    }
    progress.update(counts);
  });

  progress.finish();
  io.stderr.write(
    `${files.length} file${files.length === 1 ? '' : 's'}: ${counts.done} done, ${counts.failed} failed, ${counts.retried} retried, ${tokens}` +
      `${withBrokenRules > 0 ? `; ${withBrokenRules} with rules still broken` : ''}\n`,
  );
  if (counts.failed > 0) return 1;
  return withBrokenRules > 0 ? EXIT_BELOW_BAR : 0;
}
