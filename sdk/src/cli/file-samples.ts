/**
 * A persona file's `samples`: the persona's evaluation samples as `{ name?, content, expect? }`,
 * in order, without ids. Ids are the server's: it keeps a sample's id while the sample is
 * unchanged, whether or not the id is sent, so a file needs none, and one without ids imports
 * into any server or account. A file without `samples` leaves the persona's samples as they are.
 * Pure, with no imports: the studio reads the same format.
 */

export interface FileSample {
  name?: string;
  content: string;
  expect?: { contains?: string[]; notContains?: string[] };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A sample as a file holds it: the stored one without its id, members in the API's order. */
export function fileSampleOf({ name, content, expect }: FileSample & { id?: string }): FileSample {
  return { ...(name === undefined ? {} : { name }), content, ...(expect === undefined ? {} : { expect }) };
}

/** Checks a file's `samples` member; returns the samples or what is wrong. Limits (200 samples, lengths) are the server's to enforce. */
export function fileSamplesFrom(value: unknown): FileSample[] | string {
  if (!Array.isArray(value)) return '"samples" must be a list of { "name"?, "content", "expect"? }';
  const samples: FileSample[] = [];
  for (const [index, sample] of value.entries()) {
    const at = `"samples"[${index}]`;
    if (!isObject(sample)) return `${at} must be a JSON object { "name"?, "content", "expect"? }`;
    const unknown = Object.keys(sample).filter((key) => !['name', 'content', 'expect'].includes(key));
    if (unknown.includes('id')) return `${at} has an "id": sample ids are the server's (an unchanged sample keeps its own); leave it out`;
    if (unknown.length > 0) return `${at} has unknown field ${unknown.map((key) => `"${key}"`).join(', ')}; a sample has only name, content and expect`;
    const { name, content, expect } = sample;
    if (name !== undefined && typeof name !== 'string') return `${at}."name" must be a string`;
    if (typeof content !== 'string' || content === '') return `${at}."content" must be a non-empty string`;
    if (expect !== undefined) {
      if (!isObject(expect)) return `${at}."expect" must be a JSON object { "contains"?, "notContains"? }`;
      const extra = Object.keys(expect).filter((key) => key !== 'contains' && key !== 'notContains');
      if (extra.length > 0) return `${at}."expect" has unknown field ${extra.map((key) => `"${key}"`).join(', ')}`;
      if (!['contains', 'notContains'].every((key) => expect[key] === undefined || isStringList(expect[key]))) {
        return `${at}."expect" lists must be lists of strings`;
      }
    }
    samples.push(fileSampleOf(sample as unknown as FileSample));
  }
  return samples;
}
