// `npm run build`, after tsc: dist/server.js becomes one ES module holding the service's own code
// and its pure-JavaScript dependencies. Node spends most of a cold start finding, reading and
// compiling ~700 separate modules; one file starts in about two thirds of the CPU time.
// What stays outside the bundle, loaded from node_modules as before:
// - native addons (better-sqlite3) and packages that read files next to their own code
//   (@fastify/static, @fastify/swagger-ui, pino's worker transports);
// - what is only loaded when configured or after listening (pg, ioredis, undici, OpenTelemetry),
//   so it costs nothing at start, as before.
// Modules imported on demand (the pretty log printer) become chunks of their own in dist/chunks/.
// The rest of dist/ (the CLI, the modules tests and tools import) is tsc's output, unchanged.
import { existsSync, rmSync } from 'node:fs';
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

export async function bundleServer() {
  let esbuild;
  try {
    esbuild = await import(createRequire(join(root, 'package.json')).resolve('esbuild'));
  } catch {
    // Without esbuild (an install without dev dependencies) tsc's dist/server.js still runs; it starts slower.
    process.stderr.write('esbuild is not installed: dist/server.js is left unbundled (slower cold start)\n');
    return;
  }
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
