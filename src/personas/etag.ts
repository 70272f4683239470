/** ETags are derived from the row version: every successful write bumps it. */
import { invalidRequest } from '../errors.js';

/** The largest version a persona can reach: both engines store it as a 32-bit integer. */
export const VERSION_MAX = 2_147_483_647;

export function etagFor(version: number): string {
  return `"${version}"`;
}

/**
 * The versions an If-Match header accepts (RFC 9110 §13.1.1: a list of
 * entity tags, compared strongly): `undefined` when the header is absent or
 * `*` (any current version), and an empty list when it names no version this
 * resource could ever have had, which is a guaranteed mismatch.
 */
export function versionsFromIfMatch(header: string | undefined): number[] | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const tag of header.split(',')) {
    if (tag.trim() !== '') refuseUnquoted(tag.trim());
    // Weak tags (W/"3") never match under strong comparison.
    const match = /^\s*"(\d{1,15})"\s*$/.exec(tag);
    // A number past the column's range names no version (and must not reach PostgreSQL).
    if (match?.[1] && Number(match[1]) <= VERSION_MAX) versions.push(Number(match[1]));
  }
  return versions;
}

/**
 * `If-Match: 3` is not an entity tag (RFC 9110 quotes them), so it could never match: a 412
 * saying "does not match" would send the caller looking for a version problem they do not have.
 * A 400 says how to write it instead.
 */
function refuseUnquoted(tag: string): void {
  if (/^(?:W\/)?"[^"]*"$/.test(tag)) return;
  if (/^\d{1,15}$/.test(tag)) throw invalidRequest(`If-Match: ${tag} is not an entity tag; quote it as the ETag header does: If-Match: "${tag}"`);
  throw invalidRequest('If-Match must list entity tags in quotes, as the ETag header gives them (If-Match: "3"), or be *');
}
