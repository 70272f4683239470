/**
 * Tests wait for what they count (expect.poll, or a Clock the test moves), never for a time:
 * a fixed wait is too short on a loaded machine and too long on a quiet one. A test that is
 * about time passing in a real process may still wait, and says why on the line or the one above
 * with `// sleeps because …`. Left out: test/fakes/ (a fake provider's pace is what it serves)
 * and this file (its examples are sleeps).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const FOLDERS = ['test', 'sdk/test'];
const LEFT_OUT = ['test/fakes/', 'test/process/test-sleeps.test.ts'];
const MARKER = '// sleeps because';

function tsFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** A timer wrapped in a promise, or a call of a helper named for waiting. */
export function isSleep(line: string): boolean {
  return /new Promise\b.*\bsetTimeout\s*\(/.test(line) || /\bawait\s+(sleep|delay|wait)\s*\(/.test(line);
}

/** `file:line` of every sleep with no marker on its line or the line above. */
export function unmarkedSleeps(file: string, text: string): string[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) =>
    isSleep(line) && !line.includes(MARKER) && !(lines[i - 1] ?? '').includes(MARKER) ? [`${file}:${i + 1}`] : [],
  );
}

describe('tests wait for what they count', () => {
  it('the scan finds a timer in a promise and a sleep helper, and lets a marked one be', () => {
    expect(unmarkedSleeps('a.ts', 'await new Promise((r) => setTimeout(r, 200));')).toEqual(['a.ts:1']);
    expect(unmarkedSleeps('a.ts', 'x();\n    await sleep(2_100);')).toEqual(['a.ts:2']);
    expect(unmarkedSleeps('a.ts', `${MARKER} the OS keeps the port\nawait sleep(100);`)).toEqual([]);
    expect(unmarkedSleeps('a.ts', `await sleep(100); ${MARKER} the OS keeps the port`)).toEqual([]);
    expect(unmarkedSleeps('a.ts', 'setTimeout(() => controller.abort(), 10);')).toEqual([]);
  });

  it('no test under test/ or sdk/test/ sleeps for synchronisation without saying why', () => {
    const found = FOLDERS.flatMap((folder) => tsFiles(join(root, folder)))
      .map((path) => relative(root, path))
      .filter((file) => !LEFT_OUT.some((prefix) => file.startsWith(prefix)))
      .flatMap((file) => unmarkedSleeps(file, readFileSync(join(root, file), 'utf8')));
    expect(found, `wait with expect.poll for what is counted, or say "${MARKER} …"`).toEqual([]);
  });
});
