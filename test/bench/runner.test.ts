/**
 * Smoke test for the benchmark runner: it still compiles, starts its processes, measures
 * something real and prints its table. One-second runs: CRUD, chat completions, webhooks. How fast
 * is never asserted (timed assertions on a shared machine would be flaky — benchmarks are run with
 * `npm run bench`), but a broken benchmark is: requests that all fail, zero throughput, NaN or
 * missing figures; and counts that do not depend on speed (provider calls per text, webhook
 * deliveries) are exact.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Figures in the printed table that show the benchmark itself is broken, not merely slow. */
function brokenFigures(stdout: string): string[] {
  const rows = stdout.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Scenario'));
  // "0 failed of 500" is a figure; any other count of failures is a broken run.
  const problems = rows.filter((row) => /NaN|n\/a|undefined|Infinity|[1-9][\d,]* failed|ERROR/i.test(row));
  for (const row of rows) {
    const [, figure, value] = row.split('|').map((cell) => cell.trim()).slice(1);
    for (const [shown, number] of (value ?? '').matchAll(/([\d,.]+)(?:\/s|%| µs CPU\/req)/g)) {
      if (!(Number(number!.replace(/,/g, '')) > 0)) problems.push(`${figure}: ${shown}`);
    }
  }
  return problems;
}

function runBench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'bench', '--', ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('bench runner', () => {
  it('runs `--quick --only crud` and prints the table with targets and verdicts', async () => {
    const out = join(dir, 'quick.md');
    const { code, stdout, stderr } = await runBench(['--quick', '--only', 'crud', '--out', out]);
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    expect(stdout).toContain('| Scenario | Figure | Value | Target | Result |');
    expect(stdout).toMatch(/\| CRUD \(SQLite\) \| GET \/v1\/personas\/\{id\} ÷ read baseline, throughput \| \d+% \| ≥ 60% \| (PASS|MISS) \|/);
    expect(stdout).toMatch(/\| CRUD \(SQLite\) \| GET \/v1\/personas\/\{id\} ÷ read baseline, CPU per request \| [\d.]+× .* \| ≤ 1\.6× \| (PASS|MISS) \|/);
    expect(stdout).not.toContain('ERROR');
    // Every CRUD figure: both baselines, by id, list, writes, the ratios, and CPU per request.
    expect(stdout.split('\n').filter((line) => line.startsWith('| CRUD (SQLite) |')).length).toBeGreaterThanOrEqual(10);
    expect(brokenFigures(stdout), stdout).toEqual([]);
    const report = readFileSync(out, 'utf8');
    expect(report).toContain('npm run bench -- --quick --only crud');
    expect(report).toContain('Node.js v');
  }, 180_000);

  it('runs `--quick --only chat` and prints the completion rows with their targets', async () => {
    const out = join(dir, 'chat.md');
    const { code, stdout, stderr } = await runBench(['--quick', '--only', 'chat', '--out', out]);
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    const rows = stdout.split('\n').filter((line) => line.startsWith('| Chat completions |'));
    expect(rows.join('\n')).toMatch(/\| CPU per completion at 500\/s: chat ÷ bare chat proxy \| [\d.]+× \(\d+ µs CPU\/req vs \d+ µs CPU\/req\) \| ≤ 1\.5× \| (PASS|MISS) \|/);
    expect(rows.join('\n')).toMatch(/\| CPU per completion at 500\/s: chat ÷ refine of the same answer \| [\d.]+× .* \| ≤ 1\.1× \| (PASS|MISS) \|/);
    // The counts are exact, whatever the machine's load: one call per text, two with the repair; the app's way one more each.
    expect(rows.join('\n')).toMatch(/\| provider calls per text, one completion each \(3 texts, persona whose rules the answer keeps\) \| 1 \| = 1 \| PASS \|/);
    expect(rows.join('\n')).toMatch(/\| provider calls per text, generation \+ POST \/v1\/refine \(3 texts, persona whose rules the answer keeps\) \| 2 \(2\.00× the completion's\) \|/);
    expect(rows.join('\n')).toMatch(/\| provider calls per text, one completion each \(3 texts, persona with a required rule .*\) \| 2 \| = 2 \| PASS \|/);
    expect(rows.join('\n')).toMatch(/\| provider calls per text, generation \+ POST \/v1\/refine \(3 texts, persona with a required rule .*\) \| 3 \(1\.50× the completion's\) \|/);
    expect(rows.filter((row) => row.includes('| tokens per text, completion vs generation + refine'))).toHaveLength(2);
    expect(rows).toHaveLength(13);
    expect(brokenFigures(stdout), stdout).toEqual([]);
  }, 300_000);

  it('runs `--quick --only webhooks`: every delivery arrives once, and each judged figure has its target', async () => {
    const out = join(dir, 'webhooks.md');
    const { code, stdout, stderr } = await runBench(['--quick', '--only', 'webhooks', '--out', out]);
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    const rows = stdout.split('\n').filter((line) => line.startsWith('| Webhooks (SQLite) |')).join('\n');
    expect(rows).toMatch(/\| CPU per write, 5 endpoints ÷ none, deliveries included \| [\d.]+× \(\d+ µs CPU\/req vs \d+ µs CPU\/req\) \| ≤ 2\.5× \| (PASS|MISS) \|/);
    expect(rows).toMatch(/\| p99 a write's 5 endpoints add at 200\/s \| [+-][\d.]+ ms .* \| ≤ \+5 ms \| (PASS|MISS) \|/);
    expect(rows).toMatch(/\| PATCH answered → delivery received, p99 of every delivery \| [\d.]+ ms \| ≤ 100 ms \| (PASS|MISS) \|/);
    expect(rows).toMatch(/\| CPU per refine, 5 endpoints ÷ none \| [\d.]+× .* \| ≤ 1\.1× \| (PASS|MISS) \|/);
    // Counts, not speed: 200 PATCHes a second for one second, five endpoints each, and the run at 50/s.
    expect(rows).toMatch(/\| deliveries received of those expected \(5 per answered PATCH\), worst round \| 1000 of 1000, 0 twice, 0 attempts failed \| all, once each \| PASS \|/);
    expect(rows).toMatch(/\| at 50\/s \(250\/s deliveries\), one run: .* \| [\d.]+ ms, [\d.]+ ms; 250 of 250 \|/);
    expect(brokenFigures(stdout), stdout).toEqual([]);
  }, 300_000);
});
