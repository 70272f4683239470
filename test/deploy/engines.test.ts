import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const engines = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } }).engines.node;
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};
const TESTED_MAJORS = [20, 22, 24];

/** The oldest release of a major line that the engines range admits. */
function oldestAdmitted(major: number): semver.SemVer | null {
  const candidates = new semver.Range(engines).set
    .map((comparators) => semver.minVersion(`${comparators.map(String).join(' ')} >=${major}.0.0 <${major + 1}.0.0`))
    .filter((version): version is semver.SemVer => version !== null && version.major === major);
  return candidates.sort(semver.compare)[0] ?? null;
}

describe('the engines range', () => {
  it('admits Node 20, 22 and 24, the releases CI runs on', () => {
    expect(TESTED_MAJORS.map((major) => oldestAdmitted(major)?.version)).toEqual(['20.19.0', '22.12.0', '24.0.0']);
  });

  it('is supported by every installed dependency from the oldest admitted release of each line, so npm install prints no EBADENGINE', () => {
    const unsupported: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      // npm skips an optional package (a platform binary) that does not fit, without a warning.
      if (path === '' || range === undefined || entry.optional) continue;
      for (const major of TESTED_MAJORS) {
        const oldest = oldestAdmitted(major)!;
        if (!semver.satisfies(oldest, range)) unsupported.push(`${path.replace(/^.*node_modules\//, '')} wants node ${range}, not ${oldest.version}`);
      }
    }
    expect(unsupported).toEqual([]);
  });
});
