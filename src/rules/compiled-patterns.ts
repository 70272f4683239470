/**
 * The regular expressions built from personas' own phrases (word-match.ts, sign-off.ts),
 * kept in one cache bounded in bytes for the whole process: compiling is dearer than
 * matching and a persona's lists are the same on every request, but a count-bounded
 * cache let one account fill the heap with a thousand multi-megabyte patterns.
 *
 * V8 cannot say how big a compiled pattern is; measured on Node 20, a case-insensitive
 * unicode alternation holds about 100 bytes of heap per character of its source, and is
 * compiled once for each string representation it meets (Latin-1 and two-byte). The
 * estimate takes 256 bytes per character, so the budget errs on the safe side.
 */
import { ByteBoundedLru } from '../limits/byte-bounded-lru.js';

const BYTES_PER_SOURCE_CHARACTER = 256;
/** The whole process's budget for compiled persona patterns. */
export const PATTERN_CACHE_BYTES = 64 * 1024 * 1024;

const patterns = new ByteBoundedLru<unknown>(PATTERN_CACHE_BYTES);

/**
 * The pattern cached under `kind` and `key`, or the one `build` makes, held at the size
 * its source (`sourceLength`, 0 for none) implies.
 */
export function compiledPattern<T>(kind: string, key: string, build: () => T, sourceLength: (built: T) => number): T {
  return patterns.getOrBuild(`${kind}\u0000${key}`, build, (built) => 64 + key.length * 2 + sourceLength(built as T) * BYTES_PER_SOURCE_CHARACTER) as T;
}

/** For tests and metrics: what the cache holds now. */
export function patternCacheUsage(): { entries: number; bytes: number } {
  return { entries: patterns.size, bytes: patterns.bytes };
}
