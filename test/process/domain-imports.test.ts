/**
 * The domain owns its types: nothing under the domain folders reaches the HTTP
 * layer (src/schemas, src/http, src/routes) or a Fastify package, directly or
 * through another module of src/. See docs/architecture.md, "The domain owns its types".
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const src = join(root, 'src');
const DOMAIN = ['personas', 'refine', 'rules', 'scoring', 'providers', 'audit', 'usage', 'evals', 'accounts', 'limits', 'cache', 'chat'];
const FORBIDDEN_FOLDERS = ['schemas', 'http', 'routes'];

function tsFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every specifier a file imports: static imports (type-only too), `export … from`, `import()` and `import('x')` types. */
export function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** A relative specifier as the .ts file in src/ it names, or undefined when it names none. */
function resolveLocal(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile() && candidate.endsWith('.ts')) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function forbiddenPackage(specifier: string): boolean {
  return specifier === 'fastify' || specifier.startsWith('fastify/') || specifier.startsWith('@fastify/');
}

function forbiddenFile(path: string): boolean {
  const rel = relative(src, path).split('\\').join('/');
  return FORBIDDEN_FOLDERS.some((folder) => rel.startsWith(`${folder}/`));
}

/** Each domain file that reaches a forbidden module, with the chain of imports that gets there. */
export function violations(): string[] {
  const found: string[] = [];
  const imports = new Map<string, string[]>();
  const importsOf = (file: string) => {
    let list = imports.get(file);
    if (!list) imports.set(file, (list = specifiers(readFileSync(file, 'utf8'))));
    return list;
  };
  const show = (file: string) => relative(root, file);
  for (const start of DOMAIN.flatMap((folder) => tsFiles(join(src, folder)))) {
    // Breadth-first, so each chain reported is a shortest one.
    const via = new Map<string, string | undefined>([[start, undefined]]);
    const queue = [start];
    const chainTo = (file: string) => {
      const chain: string[] = [];
      for (let at: string | undefined = file; at; at = via.get(at)) chain.unshift(show(at));
      return chain;
    };
    while (queue.length > 0) {
      const file = queue.shift()!;
      for (const specifier of importsOf(file)) {
        if (forbiddenPackage(specifier)) {
          found.push(`${show(start)}: ${[...chainTo(file), specifier].join(' -> ')}`);
          continue;
        }
        if (!specifier.startsWith('.')) continue;
        const target = resolveLocal(file, specifier);
        if (!target || !target.startsWith(src + '/') || via.has(target)) continue;
        via.set(target, file);
        if (forbiddenFile(target)) found.push(`${show(start)}: ${chainTo(target).join(' -> ')}`);
        else queue.push(target);
      }
    }
  }
  return found;
}

describe('the domain import graph', () => {
  it('reads static, type-only, re-exported and dynamic imports', () => {
    const text = [
      "import type { A } from '../schemas/a.js';",
      "import { b } from './b.js';",
      "export { c } from '../http/c.js';",
      "export * from './d.js';",
      "const e = await import('../routes/e.js');",
      "let f: typeof import('fastify');",
    ].join('\n');
    expect(specifiers(text)).toEqual(['../schemas/a.js', './b.js', '../http/c.js', './d.js', '../routes/e.js', 'fastify']);
  });

  it('never reaches src/schemas, src/http, src/routes or a Fastify package from the domain', () => {
    expect(violations()).toEqual([]);
  });
});
