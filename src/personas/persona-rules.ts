/** Persona field rules beyond what the JSON schema can say. */
import { invalidRequest } from '../errors.js';
import { checkAttributes } from './variants.js';

export const NAME_MAX_LENGTH = 200;
export const ATTRIBUTES_MAX_BYTES = 64 * 1024;
/** `terms` is not counted in ATTRIBUTES_MAX_BYTES but in this: 2,000 entries of about 130 bytes each. */
export const TERMS_MAX_BYTES = 256 * 1024;
export const ATTRIBUTES_MAX_DEPTH = 32;

const NAME_MESSAGE = `name must be a non-empty string of at most ${NAME_MAX_LENGTH} characters`;

export function normalizeName(name: string): string {
  const trimmed = name.trim();
  // Code points, not UTF-16 units: "200 characters" means what a person counts.
  let length = 0;
  for (const _ of trimmed) if (++length > NAME_MAX_LENGTH) break;
  if (length === 0 || length > NAME_MAX_LENGTH) throw invalidRequest(NAME_MESSAGE);
  return trimmed;
}

function depthOf(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  // Past the limit the exact depth does not matter; recursing on would overflow the stack.
  if (limit <= 0) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) {
    const depth = depthOf(child, limit - 1);
    if (depth > deepest) deepest = depth;
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

/** Serializes attributes for storage, refusing what is too big or too deep to be a persona. */
export function serializeAttributes(attributes: Record<string, unknown>): string {
  if (depthOf(attributes, ATTRIBUTES_MAX_DEPTH + 1) > ATTRIBUTES_MAX_DEPTH) {
    throw invalidRequest(`attributes must not be nested more than ${ATTRIBUTES_MAX_DEPTH} levels deep`);
  }
  const json = JSON.stringify(attributes);
  // A term base has its own budget: 2,000 entries do not fit in the one every other key shares.
  const termBytes = Array.isArray(attributes.terms) ? Buffer.byteLength(JSON.stringify(attributes.terms), 'utf8') : 0;
  if (termBytes > TERMS_MAX_BYTES) {
    throw invalidRequest(`attributes.terms must be at most ${TERMS_MAX_BYTES / 1024} KiB when serialized as JSON`);
  }
  if (Buffer.byteLength(json, 'utf8') - termBytes > ATTRIBUTES_MAX_BYTES) {
    throw invalidRequest(`attributes must be at most ${ATTRIBUTES_MAX_BYTES / 1024} KiB when serialized as JSON`);
  }
  checkAttributes(attributes);
  return json;
}
