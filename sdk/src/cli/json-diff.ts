/**
 * Field-level differences between two JSON values, for showing what an import would change.
 * Objects are compared key by key (key order is not a change); arrays and scalars as a whole,
 * since an edited list reads best as "this list became that list".
 */

export const ABSENT = Symbol('absent');
type Value = unknown | typeof ABSENT;

export interface FieldChange {
  /** e.g. `attributes.tone`, `attributes["sign off"]` */
  path: string;
  before: Value;
  after: Value;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && jsonEqual(a[key], b[key]));
  }
  return a === b;
}

const childPath = (path: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;

export function diffJson(before: Value, after: Value, path = ''): FieldChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) =>
      diffJson(key in before ? before[key] : ABSENT, key in after ? after[key] : ABSENT, childPath(path, key)),
    );
  }
  if (before !== ABSENT && after !== ABSENT && jsonEqual(before, after)) return [];
  if (before === ABSENT && after === ABSENT) return [];
  return [{ path, before, after }];
}

const show = (value: Value) => (value === ABSENT ? '(absent)' : JSON.stringify(value));

/** `attributes.tone: "warm" → "dry"` */
export function formatChange(change: FieldChange): string {
  return `${change.path}: ${show(change.before)} → ${show(change.after)}`;
}
