/**
 * Smoke test for the benchmark runner: it still compiles, starts its processes and prints
 * its table. One-second runs, CRUD only; the figures themselves are never asserted here
 * (timed assertions on a shared machine would be flaky — benchmarks are run with `npm run bench`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
    expect(stdout).toMatch(/\| CRUD \(SQLite\) \| GET \/v1\/personas\/\{id\} ÷ baseline \| \d+% \| ≥ 75% \| (PASS|MISS) \|/);
    expect(stdout).not.toContain('ERROR');
    const report = readFileSync(out, 'utf8');
    expect(report).toContain('npm run bench -- --quick --only crud');
    expect(report).toContain('Node.js v');
  }, 180_000);
});
