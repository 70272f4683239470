/** Rows → the markdown table (stdout and bench/results/*.md), with the target beside each figure. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { Latency } from './load.js';

export type Status = 'PASS' | 'MISS' | 'info' | 'SKIP';

export interface Row {
  scenario: string;
  figure: string;
  value: string;
  /** The target as the issue words it, or '—' for context figures. */
  target: string;
  status: Status;
}

export interface ScenarioResult {
  rows: Row[];
  /** Free-text lines printed under the table (settings changed, caveats). */
  notes: string[];
}

export const info = (scenario: string, figure: string, value: string): Row => ({ scenario, figure, value, target: '—', status: 'info' });

/** A figure with a target: `atMost` for latencies and memory, `atLeast` for ratios and counts. */
export function judged(scenario: string, figure: string, value: number, shown: string, target: { atMost?: number; atLeast?: number; text: string }): Row {
  const pass = Number.isFinite(value) && (target.atMost === undefined || value <= target.atMost) && (target.atLeast === undefined || value >= target.atLeast);
  return { scenario, figure, value: shown, target: target.text, status: pass ? 'PASS' : 'MISS' };
}

export const skipped = (scenario: string, why: string): Row => ({ scenario, figure: why, value: '—', target: '—', status: 'SKIP' });

export const ms = (value: number) => `${value.toFixed(2)} ms`;
export const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
export const percent = (ratio: number) => (Number.isFinite(ratio) ? `${(ratio * 100).toFixed(0)}%` : 'n/a');
/** Server CPU time per request. */
export const cpu = (us: number) => (Number.isFinite(us) ? `${Math.round(us)} µs CPU/req` : 'CPU n/a');
/** An open-loop run: its latencies, what was answered and the server's CPU per request. */
export const latency = (l: Latency) => `p50 ${ms(l.p50)}, p99 ${ms(l.p99)}; ${perSecond(l.achievedRate)} achieved, ${l.failed} failed of ${l.sent}; ${cpu(l.cpuUs)}`;

export function table(rows: Row[]): string {
  const lines = ['| Scenario | Figure | Value | Target | Result |', '|---|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${row.scenario} | ${row.figure} | ${row.value} | ${row.target} | ${row.status} |`);
  return lines.join('\n');
}

export function machine(): string[] {
  const [one, five] = loadavg();
  return [
    `- CPU: ${cpus()[0]?.model ?? 'unknown'}, ${availableParallelism()} cores`,
    `- Memory: ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `- Node.js ${process.version}, ${process.platform} ${release()}`,
    // Shared machines are noisy: the load before the run tells the reader how much to trust it.
    `- Load average when the run started: ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min)`,
  ];
}

export function document(options: { rows: Row[]; notes: string[]; machineLines: string[]; command: string; started: Date; seconds: number }): string {
  return [
    `# persona-refine benchmark results`,
    '',
    `Run ${options.started.toISOString()} with \`${options.command}\` (took ${options.seconds.toFixed(0)} s).`,
    '',
    table(options.rows),
    '',
    ...(options.notes.length > 0 ? ['Notes:', '', ...options.notes.map((note) => `- ${note}`), ''] : []),
    'Machine and code:',
    '',
    ...options.machineLines,
    '',
  ].join('\n');
}

export function writeReport(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
