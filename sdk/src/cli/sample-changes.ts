/**
 * What importing a file's `samples` would change. Samples are compared whole: the server gives a
 * changed sample a new id (an id names one text), so a change reads as the old sample removed and
 * the new one added, as it will be stored. The set is ordered; the same samples in another order
 * is a change too.
 */
import type { FileSample } from './file-samples.js';
import { jsonEqual } from './json-diff.js';

export type SampleChange = { kind: 'added' | 'removed'; sample: FileSample } | { kind: 'reordered' };

/** Each sample of `from` not matched, one for one, by an equal sample of `against`. */
function unmatched(from: readonly FileSample[], against: readonly FileSample[]): FileSample[] {
  const left = [...against];
  return from.filter((sample) => {
    const at = left.findIndex((other) => jsonEqual(other, sample));
    if (at === -1) return true;
    left.splice(at, 1);
    return false;
  });
}

export function sampleChanges(before: readonly FileSample[], after: readonly FileSample[]): SampleChange[] {
  const changes: SampleChange[] = [
    ...unmatched(before, after).map((sample): SampleChange => ({ kind: 'removed', sample })),
    ...unmatched(after, before).map((sample): SampleChange => ({ kind: 'added', sample })),
  ];
  if (changes.length === 0 && !jsonEqual(before, after)) changes.push({ kind: 'reordered' });
  return changes;
}

/** `samples: + {"name":"welcome","content":"Dear customers,"}`, `samples: - {…}`, `samples: reordered`. */
export function formatSampleChange(change: SampleChange): string {
  return change.kind === 'reordered' ? 'samples: reordered' : `samples: ${change.kind === 'added' ? '+' : '-'} ${JSON.stringify(change.sample)}`;
}
