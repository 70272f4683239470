/**
 * The library must run in browsers, Deno and edge runtimes: no Node built-ins, no runtime
 * dependencies. Type-checking it without Node's types catches a `node:` import or a Node-only
 * global the moment it is written.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sdkDir = fileURLToPath(new URL('..', import.meta.url));

describe('the library outside src/cli', () => {
  it('type-checks without Node types (tsconfig.runtime-neutral.json)', () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = () => execFileSync(process.execPath, [tsc, '-p', 'tsconfig.runtime-neutral.json', '--noEmit'], { cwd: sdkDir, encoding: 'utf8' });
    expect(run).not.toThrow();
  }, 60_000);

  it('has zero runtime dependencies: only optional peers, which only the CLI loads', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(manifest.dependencies ?? {}).toEqual({});
    // `persona-refine mcp` needs the MCP SDK; npm installs an optional peer only when asked to.
    expect(Object.keys(manifest.peerDependencies ?? {})).toEqual(['@modelcontextprotocol/sdk']);
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) expect(manifest.peerDependenciesMeta?.[peer]?.optional).toBe(true);
    const library = spawnSync('grep', ['-rl', '--include=*.ts', '--exclude-dir=cli', '@modelcontextprotocol', 'src'], { cwd: sdkDir, encoding: 'utf8' });
    expect([library.status, library.stdout]).toEqual([1, '']);
  });
});
