/**
 * Where `refine --out DIR` writes each input, decided and checked before any work: two inputs
 * whose names differ only in case would overwrite each other on a case-insensitive file system
 * (macOS, Windows), and an output that is an input (`--out drafts drafts/a.txt`, or the same file
 * under another spelling or link) would destroy the text being refined.
 */
import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { UsageError } from './io.js';

/** Case and Unicode normalization folded, as the most forgiving file system would. */
const folded = (name: string) => name.normalize('NFC').toLowerCase();

async function identity(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info === undefined ? undefined : `${info.dev}:${info.ino}`;
}

/** Input (as given) → output path (relative to cwd, as shown), or a UsageError naming the clash. */
export async function outputPaths(files: string[], out: string, cwd: string): Promise<Map<string, string>> {
  const byName = new Map<string, string>();
  for (const file of files) {
    const other = byName.get(folded(basename(file)));
    if (other !== undefined) throw new UsageError(`${other} and ${file} would both be written to ${join(out, basename(file))} (names differing only in case count as the same)`);
    byName.set(folded(basename(file)), file);
  }
  const inputs = new Set(files.map((file) => folded(resolve(cwd, file))));
  const inputIds = new Set((await Promise.all(files.map((file) => identity(resolve(cwd, file))))).filter((id) => id !== undefined));
  const targets = new Map<string, string>();
  for (const file of files) {
    const target = join(out, basename(file));
    const absolute = resolve(cwd, target);
    const id = await identity(absolute);
    if (inputs.has(folded(absolute)) || (id !== undefined && inputIds.has(id))) {
      throw new UsageError(`${target} is one of the inputs; refusing to overwrite it (choose another --out DIR)`);
    }
    targets.set(file, target);
  }
  return targets;
}
