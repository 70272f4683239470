/**
 * The machine's python3, for the tests of clients/python. Skips are loud; under
 * REQUIRE_SERVICES=1 (CI) a missing python3 fails the run instead, like a missing database.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function findPython(): Promise<boolean> {
  try {
    await run('python3', ['--version']);
    return true;
  } catch {
    if (process.env.REQUIRE_SERVICES === '1') throw new Error('REQUIRE_SERVICES=1 but python3 is not on the PATH');
    process.stderr.write('\n*** SKIPPING Python client tests: python3 is not on the PATH ***\n\n');
    return false;
  }
}

export const pythonAvailable = await findPython();

export interface PythonRun {
  code: number;
  output: string;
}

/** Runs python3 with `args`; its exit code and its stdout and stderr together, whatever the outcome. */
export async function runPython(args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs: number }): Promise<PythonRun> {
  try {
    const { stdout, stderr } = await run('python3', args, { env: { ...process.env, ...options.env }, cwd: options.cwd, timeout: options.timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}\n${failed.message}` };
  }
}
