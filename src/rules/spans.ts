/** A half-open range of UTF-16 code units: `text.slice(start, end)`. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface Edit extends Span {
  readonly replacement: string;
}

/** Answers "does [start, end) overlap any of these spans?" */
export type OverlapTest = (start: number, end: number) => boolean;

/**
 * Builds an overlap test in O(n log n) so that scanning a long text with many URLs or
 * code spans stays linear-ish: spans sorted by start, plus the running maximum end.
 */
export function overlapTest(spans: readonly Span[]): OverlapTest {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const maxEnd: number[] = [];
  let runningMax = -1;
  for (const span of sorted) {
    runningMax = Math.max(runningMax, span.end);
    maxEnd.push(runningMax);
  }
  return (start, end) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]!.start < end) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && maxEnd[lo - 1]! > start;
  };
}

/** Applies edits given in any order; an edit overlapping an earlier one is dropped. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const edit of sorted) {
    if (edit.start < cursor) continue;
    out += text.slice(cursor, edit.start) + edit.replacement;
    cursor = edit.end;
  }
  return out + text.slice(cursor);
}

/**
 * Appends every item of `lists` to `target`. Not `push(...items)`: spreading passes each item
 * as an argument, and an answer of 150,000 placeholders overflowed the call stack.
 */
export function appendAll<T>(target: T[], ...lists: readonly (readonly T[])[]): T[] {
  for (const list of lists) for (const item of list) target.push(item);
  return target;
}

// A rule's message quotes terms as the prompts do: it reaches the repair prompt.
export { quote } from '../personas/catalogue/prompt-lines.js';
