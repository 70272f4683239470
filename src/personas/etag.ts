/** ETags are derived from the row version: every successful write bumps it. */

export function etagFor(version: number): string {
  return `"${version}"`;
}

/**
 * The version an If-Match header pins, `undefined` when the header is absent
 * or `*` (any current version), and `null` when it names no version this
 * resource could ever have had, which is a guaranteed mismatch.
 */
export function versionFromIfMatch(header: string | undefined): number | undefined | null {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return undefined;
  // If-Match uses strong comparison (RFC 9110 §13.1.1): weak tags never match.
  const match = /^"(\d{1,15})"$/.exec(value);
  return match?.[1] ? Number(match[1]) : null;
}
