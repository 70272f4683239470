import { execFileSync } from 'node:child_process';

/** Process-level tests run the built server exactly as `npm start` does. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build-if-needed.mjs'], { stdio: 'inherit' });
}
