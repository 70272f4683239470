/** Runs the CLI in-process with captured streams, as a test would read a terminal. */
import { Readable } from 'node:stream';
import { run } from '../../src/cli/run.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  stdin?: string;
  /** Pretend stderr is a terminal (progress bar) rather than a pipe (plain lines). */
  tty?: boolean;
  /** Pretend stdout is a terminal (its text stripped of control sequences) rather than a pipe (kept as is). */
  stdoutTty?: boolean;
}

export async function runCli(argv: string[], options: CliRunOptions): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    env: options.env,
    cwd: options.cwd,
    stdin: Readable.from([options.stdin ?? '']),
    stdout: { write: (text: string) => (stdout += text), isTTY: options.stdoutTty ?? false, columns: 100 },
    stderr: { write: (text: string) => (stderr += text), isTTY: options.tty ?? false, columns: 100 },
  });
  return { code, stdout, stderr };
}
