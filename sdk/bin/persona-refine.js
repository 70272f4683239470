#!/usr/bin/env node
// The `persona-refine` binary. A published package ships dist/ (prepack builds it); in a clone of
// the repository dist/ does not exist yet when npm links this file, so the CLI is compiled here on
// first use, and again whenever a source file is newer than the build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const sdk = fileURLToPath(new URL('..', import.meta.url));
const entry = `${sdk}dist/cli/main.js`;

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(`${path}/${name}`)));
}

if (existsSync(`${sdk}src`)) {
  const sources = Math.max(newestMtime(`${sdk}src`), newestMtime(`${sdk}tsconfig.build.json`), newestMtime(`${sdk}tsconfig.json`));
  if (!existsSync(entry) || statSync(entry).mtimeMs < sources) {
    process.stderr.write('building the persona-refine CLI…\n');
    const tsc = createRequire(`${sdk}package.json`).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', `${sdk}tsconfig.build.json`], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
}

await import(new URL('../dist/cli/main.js', import.meta.url).href);
