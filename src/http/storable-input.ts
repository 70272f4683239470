/**
 * Input both storage engines can hold. PostgreSQL cannot store the NUL character in
 * text or jsonb (SQLite can), so a NUL anywhere in a request is refused here, at the
 * edge, with the same 400 on both engines, before anything is read, written or paid
 * for (docs/storage-and-reliability.md, "Input both engines can store").
 */
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../errors.js';

const NUL = '\u0000';
/** `%00` in any case: the URL is checked before it is decoded. */
const ENCODED_NUL = /%00/i;

/** The dotted path of the first string (or key) holding a NUL, or undefined when none does. */
function pathOfNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = path === '' ? key : `${path}.${key}`;
    if (key.includes(NUL)) return `the key ${JSON.stringify(here)}`;
    const found = pathOfNul(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Throws a 400 naming the field when a parsed body holds a NUL. JSON can only carry one as
 * the escape `\u0000` (a raw control character is a syntax error), so bodies without that
 * escape, nearly all of them, are never walked.
 */
export function refuseNulInBody(raw: string, parsed: unknown): void {
  if (!raw.includes('\\u0000')) return;
  const path = pathOfNul(parsed, '');
  if (path !== undefined) {
    throw invalidRequest(`${path === '' ? 'request body' : path} must not contain the NUL character (\\u0000)`);
  }
}

export function installStorableInput(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(ENCODED_NUL.test(request.url) ? invalidRequest('the URL must not contain the NUL character (%00)') : undefined);
  });
}
