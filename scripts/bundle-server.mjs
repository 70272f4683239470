// The start path's build (build-if-needed.mjs), by esbuild in a second or two, without the type-check
// that `npm test` and `npm run build` do and a start does not need:
// - transpileSources: every src/ module to dist/, file by file, as tsc would lay it out (the admin
//   CLI, the modules tests and tools import). verbatimModuleSyntax makes each file transpilable alone.
// - bundleServer (also `npm run build`'s second half): dist/server.js becomes one ES module holding
//   the service's own code and its pure-JavaScript dependencies. Node spends most of a cold start
//   finding, reading and compiling ~700 separate modules; one file starts in about two thirds of
//   the CPU time.
// What stays outside the bundle, loaded from node_modules as before:
// - native addons (better-sqlite3) and packages that read files next to their own code
//   (@fastify/static, @fastify/swagger-ui, pino's worker transports);
// - what is only loaded when configured or after listening (pg, ioredis, undici, OpenTelemetry),
//   so it costs nothing at start, as before.
// Modules imported on demand (the pretty log printer) become chunks of their own in dist/chunks/.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

export const EXTERNAL = [
  'better-sqlite3',
  'pg',
  'ioredis',
  'undici',
  'pino',
  '@fastify/static',
  '@fastify/swagger-ui',
  '@opentelemetry/*',
];

async function loadEsbuild() {
  try {
    return await import(createRequire(join(root, 'package.json')).resolve('esbuild'));
  } catch {
    // An install without dev dependencies has no esbuild: the image builds before pruning them.
    throw new Error('esbuild is not installed (run npm install): it builds dist/');
  }
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

export async function transpileSources() {
  const esbuild = await loadEsbuild();
  await esbuild.build({
    entryPoints: sourceFiles(join(root, 'src')),
    outbase: join(root, 'src'),
    outdir: join(root, 'dist'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
}

export async function bundleServer() {
  const esbuild = await loadEsbuild();
  const chunks = join(root, 'dist', 'chunks');
  if (existsSync(chunks)) rmSync(chunks, { recursive: true });
  await esbuild.build({
    entryPoints: { server: join(root, 'src', 'server.ts') },
    outdir: join(root, 'dist'),
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    sourcemap: true,
    // Bundled CommonJS packages call require() for Node's built-ins.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await bundleServer();
