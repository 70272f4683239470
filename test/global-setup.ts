import { execFileSync } from 'node:child_process';

/**
 * Process-level tests run the built server exactly as `npm start` does, and the SDK's binary as a
 * host runs it: each is built here once, before test files that start them in parallel could
 * each begin a build of their own and read the other's half-written output.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build-if-needed.mjs'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['sdk/bin/persona-refine.js', '--version'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
