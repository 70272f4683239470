// `npm start` on a fresh clone: build the server (esbuild, a second or two: bundle-server.mjs) and
// the studio (Vite, a few seconds) once, then each only when one of its own sources is newer than
// its build. No type-checking here: `npm test` does it, and a start waits for nothing it does not need.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { bundleServer, transpileSources } from './bundle-server.mjs';

const root = new URL('..', import.meta.url).pathname;
const marker = join(root, 'dist', 'server.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

const RELATIVE_IMPORT = /^(?:import|export)[^'"]*from '(\.\.?\/[^']+)'/gm;

/** Files outside `dir` that its sources import, directly or not: the server code the studio bundles. */
function importsOutside(dir) {
  const outside = new Set();
  const follow = (file) => {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (target.startsWith(dir + '/') || outside.has(target) || !existsSync(target)) continue;
      outside.add(target);
      follow(target);
    }
  };
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) follow(path);
    }
  };
  walk(dir);
  return [...outside];
}

const sources = Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs);
if (!existsSync(marker) || statSync(marker).mtimeMs < sources) {
  process.stderr.write('building persona-refine…\n');
  try {
    await transpileSources();
    await bundleServer();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  }
}

// Persona Studio, served at /studio/, is built by Vite, a dev dependency. Without it (an install
// that omitted dev dependencies) the server still starts, and /studio says how to build it.
const studio = join(root, 'studio');
const studioMarker = join(studio, 'dist', 'index.html');
const studioSources = Math.max(
  newestMtime(join(studio, 'src')),
  ...importsOutside(join(studio, 'src')).map((file) => statSync(file).mtimeMs),
  ...['index.html', 'vite.config.ts', 'package.json'].map((file) => statSync(join(studio, file)).mtimeMs),
);
if (!existsSync(studioMarker) || statSync(studioMarker).mtimeMs < studioSources) {
  let vite;
  try {
    vite = join(dirname(createRequire(join(studio, 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    process.stderr.write('Persona Studio is not built: Vite is not installed (run npm install)\n');
  }
  if (vite) {
    process.stderr.write('building Persona Studio…\n');
    execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: studio, stdio: 'inherit' });
  }
}
