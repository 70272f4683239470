#!/usr/bin/env node
/** The `persona-refine` binary: the real process around `run`. */
import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
