/**
 * Reads a judge's answer against the schema it was given, strictly: every attribute of the
 * rubric rated exactly once, no other, each a whole number from 1 to 5 with a reason. What fails
 * is said as the rest of "the last answer …", naming at most the first problem.
 */
import type { Rating } from './judge-verdict.js';

/** A reason is one sentence; a longer one is cut here, so an answer stays small whatever the model wrote. */
export const MAX_REASON_LENGTH = 500;

const named = (value: unknown) => JSON.stringify(String(value).slice(0, 64));
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function cut(reason: string): string {
  const text = reason.trim().replace(/\s+/g, ' ');
  return text.length <= MAX_REASON_LENGTH ? text : `${text.slice(0, MAX_REASON_LENGTH - 1)}…`;
}

/** The ratings in the rubric's order, or what is wrong with the answer. */
export function readRatings(text: string, attributes: readonly string[]): { ratings: Rating[] } | { problem: string } {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { problem: 'is not JSON' };
  }
  if (!isObject(answer) || !Array.isArray(answer.ratings)) return { problem: 'is not an object with a "ratings" array' };
  const wanted = new Set(attributes);
  const found = new Map<string, Rating>();
  for (const item of answer.ratings) {
    if (!isObject(item) || typeof item.attribute !== 'string') return { problem: 'has a rating without an attribute name' };
    const { attribute, rating, reason } = item;
    if (!wanted.has(attribute)) return { problem: `rates ${named(attribute)}, which the persona does not set` };
    if (found.has(attribute)) return { problem: `rates ${named(attribute)} twice` };
    if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 5) {
      return { problem: `rates ${named(attribute)} ${String(JSON.stringify(rating) ?? 'nothing').slice(0, 64)}, not a whole number from 1 to 5` };
    }
    if (typeof reason !== 'string' || reason.trim() === '') return { problem: `gives ${named(attribute)} no reason` };
    found.set(attribute, { attribute, rating, reason: cut(reason) });
  }
  const missing = attributes.filter((attribute) => !found.has(attribute));
  if (missing.length > 0) return { problem: `does not rate ${missing.map(named).join(', ')}` };
  return { ratings: attributes.map((attribute) => found.get(attribute) as Rating) };
}
