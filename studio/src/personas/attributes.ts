/**
 * Attributes are the persona's free-form JSON object, stored verbatim by the service. The
 * studio edits it in place: a change touches one key and keeps every other key, including
 * ones it knows nothing about, in their original order.
 */
import type { Attributes } from '../api/types.js';

/** Sets `key` (or removes it when `value` is undefined), keeping every other key where it was. */
export function withAttribute(attributes: Attributes, key: string, value: unknown): Attributes {
  const next: Attributes = {};
  for (const [existing, current] of Object.entries(attributes)) {
    if (existing !== key) next[existing] = current;
    else if (value !== undefined) next[existing] = value;
  }
  if (value !== undefined && !Object.hasOwn(attributes, key)) next[key] = value;
  return next;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Same JSON, same key order: what the service would store for both. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
