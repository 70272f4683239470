/** A version as the text its diff is computed on: the name, then the attributes as pretty JSON. */
import type { PersonaVersion } from '../api/types.js';

export function versionText(version: Pick<PersonaVersion, 'name' | 'attributes'>): string {
  return `name: ${version.name}\n\n${JSON.stringify(version.attributes, null, 2)}`;
}

/** Which labels point at each version, `latest` included for the newest. */
export function labelsByVersion(labels: Record<string, number>, newest: number | undefined): Map<number, string[]> {
  const byVersion = new Map<number, string[]>();
  for (const [label, version] of Object.entries(labels)) byVersion.set(version, [...(byVersion.get(version) ?? []), label]);
  if (newest !== undefined) byVersion.set(newest, [...(byVersion.get(newest) ?? []), 'latest']);
  return byVersion;
}
