/**
 * A word-level diff of the original text and its refinement, to show what the persona changed.
 * Myers' algorithm on tokens (words, runs of whitespace, single punctuation marks): it is fast
 * when the texts are similar, which a rewrite usually is. A rewrite too different to diff
 * cheaply is shown as one removal and one insertion rather than freezing the page.
 */

export type DiffPart = { kind: 'same' | 'removed' | 'added'; text: string };

/** Beyond this many edits the texts have little in common left to show. */
const MAX_EDITS = 2000;

export function tokenize(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{M}\p{N}_'’-]+|[^\s]/gu) ?? [];
}

export function wordDiff(before: string, after: string): DiffPart[] {
  const a = tokenize(before);
  const b = tokenize(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const middle = myers(a.slice(start, endA), b.slice(start, endB)) ?? [
    ...a.slice(start, endA).map((text) => ({ kind: 'removed' as const, text })),
    ...b.slice(start, endB).map((text) => ({ kind: 'added' as const, text })),
  ];
  const parts = [
    ...a.slice(0, start).map((text) => ({ kind: 'same' as const, text })),
    ...middle,
    ...a.slice(endA).map((text) => ({ kind: 'same' as const, text })),
  ];
  return merge(parts);
}

/** The edit script from `a` to `b`, or undefined when it needs more than MAX_EDITS edits. */
function myers(a: string[], b: string[]): DiffPart[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, MAX_EDITS);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  // One snapshot per round, of the diagonals that round reads: -d-1 … d+1.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[]): DiffPart[] {
  const parts: DiffPart[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const snapshot = trace[d]!;
    const at = (k: number) => snapshot[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      parts.push({ kind: 'same', text: a[x]! });
    }
    if (d > 0) {
      if (x === prevX) parts.push({ kind: 'added', text: b[prevY]! });
      else parts.push({ kind: 'removed', text: a[prevX]! });
    }
    x = prevX;
    y = prevY;
  }
  return parts.reverse();
}

/**
 * Readable groups: within a run of changes every removal comes before every insertion, and a
 * lone space between two changes joins them, so "the quick" → "a slow" reads as one edit.
 */
function merge(parts: DiffPart[]): DiffPart[] {
  const merged: DiffPart[] = [];
  let removed = '';
  let added = '';
  const flush = () => {
    if (removed) merged.push({ kind: 'removed', text: removed });
    if (added) merged.push({ kind: 'added', text: added });
    removed = added = '';
  };
  parts.forEach((part, index) => {
    const inChange = removed !== '' || added !== '';
    const nextChanges = parts[index + 1] !== undefined && parts[index + 1]!.kind !== 'same';
    if (part.kind === 'removed') removed += part.text;
    else if (part.kind === 'added') added += part.text;
    else if (inChange && nextChanges && /^\s+$/.test(part.text)) {
      removed += part.text;
      added += part.text;
    } else {
      flush();
      const last = merged.at(-1);
      if (last?.kind === 'same') last.text += part.text;
      else merged.push({ ...part });
    }
  });
  flush();
  return merged;
}
