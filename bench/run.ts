/**
 * `npm run bench [-- --quick] [-- --only crud,refine] [-- --out path.md] [-- --cpu-prof]`
 *
 * Runs each scenario (each starts and stops its own child processes), prints one markdown
 * table with the target and PASS/MISS beside every figure, and writes it with
 * the machine description to bench/results/latest.md (quick runs: quick.md, so a smoke
 * test never overwrites a real run). MISS does not fail the run: this is a measurement,
 * not a test. A scenario that crashes does (exit 1), after the others have run.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { RESULTS_DIR, ROOT, neighbourCpuSeconds, profileServices } from './processes.js';
import { type Row, document, machine, table, writeReport } from './report.js';
import { chat } from './scenarios/chat.js';
import { coldStart } from './scenarios/cold-start.js';
import { crud } from './scenarios/crud.js';
import { firstTextScenario } from './scenarios/first-text.js';
import { idempotency } from './scenarios/idempotency.js';
import { inFlight } from './scenarios/in-flight.js';
import { peer } from './scenarios/peer.js';
import { refine } from './scenarios/refine.js';
import { streamCpu } from './scenarios/stream-cpu.js';
import { streaming } from './scenarios/streaming.js';
import { tracing } from './scenarios/tracing.js';
import { webhooks } from './scenarios/webhooks.js';
import { workers } from './scenarios/workers.js';
import { writes } from './scenarios/writes.js';
import { type Settings, settings } from './settings.js';

/** `optional`: run only when named in --only (not part of the regular run's time budget). */
const SCENARIOS: Record<string, { title: string; run: (s: Settings) => ReturnType<typeof refine>; optional?: true }> = {
  crud: { title: 'CRUD throughput on SQLite', run: (s) => crud(s, 'sqlite') },
  'crud-pg': { title: 'CRUD throughput on PostgreSQL', run: (s) => crud(s, 'postgres') },
  idempotency: { title: 'refine with and without an Idempotency-Key on SQLite', run: (s) => idempotency(s, 'sqlite') },
  'idempotency-pg': { title: 'refine with and without an Idempotency-Key on PostgreSQL', run: (s) => idempotency(s, 'postgres') },
  writes: { title: "500 writes/s on SQLite and the service's event loop", run: writes },
  refine: { title: 'refine against the fake directly and a bare proxy', run: refine },
  chat: { title: 'chat completions against a bare chat proxy, a refine, and generation + refine', run: chat },
  peer: { title: 'side by side with the Portkey gateway', run: peer },
  'in-flight': { title: 'many refines in flight', run: inFlight },
  streaming: { title: 'many streaming refines at once', run: streaming },
  'stream-cpu': { title: 'CPU of a streamed refine against the same answer unstreamed', run: streamCpu },
  'first-text': { title: 'time to the first shown text of a stream', run: firstTextScenario },
  'cold-start': { title: 'cold start', run: coldStart },
  workers: { title: 'WORKERS=2 vs WORKERS=1', run: workers },
  webhooks: { title: 'persona writes with and without 5 webhook endpoints on SQLite', run: webhooks, optional: true },
  tracing: { title: 'refine with OpenTelemetry tracing off and on', run: tracing, optional: true },
};

const USAGE = `usage: npm run bench -- [--quick] [--only ${Object.keys(SCENARIOS).join(',')}] [--out file.md] [--cpu-prof]`;

function parseArgs(argv: string[]): { quick: boolean; only: string[]; out: string | undefined; cpuProf: boolean } {
  let quick = false;
  let cpuProf = false;
  let only = Object.keys(SCENARIOS).filter((name) => !SCENARIOS[name]!.optional);
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--cpu-prof') cpuProf = true;
    else if (arg === '--only' || arg === '--out') {
      const value = argv[++i];
      if (!value) throw new Error(`${arg} needs a value\n${USAGE}`);
      if (arg === '--out') out = value;
      else {
        only = value.split(',').map((name) => name.trim());
        const unknown = only.filter((name) => !(name in SCENARIOS));
        if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}\n${USAGE}`);
      }
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else throw new Error(`unknown option ${arg}\n${USAGE}`);
  }
  return { quick, only, out, cpuProf };
}

/** Which code was measured: the commit, and whether src/ had uncommitted changes (figures are per version). */
function codeVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src') !== '';
    return `- Service: commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in src/' : ''}`;
  } catch {
    return '- Service: version unknown (not a git checkout)';
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const options = parseArgs(argv);
  const s = settings(options.quick);
  // Read before any scenario loads the machine, so it reflects the neighbours only.
  const machineLines = [codeVersion(), ...machine()];
  const command = process.env.npm_lifecycle_event === 'bench' ? `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}` : `node ${relative(ROOT, process.argv[1] ?? '')} ${argv.join(' ')}`.trim();
  const started = new Date();
  const clock = performance.now();
  const rows: Row[] = [];
  const notes: string[] = [];
  let crashed = false;
  if (options.cpuProf) {
    // For finding where the service's time goes; the profiler's own cost makes these figures incomparable.
    const dir = join(RESULTS_DIR, 'profiles', started.toISOString().replace(/[:.]/g, '-'));
    profileServices(dir);
    notes.push(`Services ran under --cpu-prof (profiles in ${relative(ROOT, dir)}; open them in Chrome DevTools): these figures include the profiler's overhead.`);
  }
  const loads: string[] = [];

  for (const name of options.only) {
    const scenario = SCENARIOS[name]!;
    const t = performance.now();
    process.stderr.write(`bench: ${scenario.title}…\n`);
    const neighbours = neighbourCpuSeconds();
    try {
      const result = await scenario.run(s);
      rows.push(...result.rows);
      notes.push(...result.notes);
    } catch (error) {
      crashed = true;
      const message = (error as Error).message.split('\n')[0] ?? String(error);
      rows.push({ scenario: scenario.title, figure: `ERROR: ${message.replace(/\|/g, '/')}`, value: '—', target: '—', status: 'MISS' });
      process.stderr.write(`bench: ${name} failed: ${(error as Error).stack ?? String(error)}\n`);
    }
    const elapsed = (performance.now() - t) / 1000;
    loads.push(`${name} ${((neighbourCpuSeconds() - neighbours) / elapsed).toFixed(2)}`);
    process.stderr.write(`bench: ${name} done in ${elapsed.toFixed(1)} s\n`);
  }

  // Other work on the machine skews everything; the reader should see how much there was.
  notes.push(`CPU used by other processes during each scenario, in cores (this machine has ${availableParallelism()}; PostgreSQL's own processes count here): ${loads.join(', ')}.`);
  const seconds = (performance.now() - clock) / 1000;
  const out = options.out ?? join(RESULTS_DIR, options.quick ? 'quick.md' : 'latest.md');
  writeReport(out, document({ rows, notes, machineLines, command, started, seconds }));
  process.stdout.write(`\n${table(rows)}\n\n${notes.map((note) => `- ${note}\n`).join('')}\n`);
  const shown = relative(process.cwd(), out).startsWith('..') ? out : relative(process.cwd(), out);
  process.stdout.write(`Took ${seconds.toFixed(0)} s. Wrote ${shown} (table, machine, command, date).\n`);
  if (!options.quick) process.stdout.write('Copy it into BENCHMARKS.md when these figures should become the published ones.\n');
  return crashed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
