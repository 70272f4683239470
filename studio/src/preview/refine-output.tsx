/** What a refine produced: text with its word-level diff, how long it took, or why it failed. */
import type { ApiError } from '../api/api-error.js';
import type { RefineOutcome } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { ProviderNames } from '../api/providers.js';
import { formatMs } from '../api/server-timing.js';
import { type RefineUsage, describeUsage } from '../api/usage.js';
import type { DiffPart } from './word-diff.js';

/** One side of a diff: the original keeps its removed words, the refinement its added ones. */
export function DiffText({ parts, side }: { parts: DiffPart[]; side: 'before' | 'after' }) {
  return (
    <div class="diff-text">
      {parts.map((part, index) => {
        if (part.kind === 'same') return part.text;
        if (part.kind === 'removed') return side === 'before' ? <del key={index}>{part.text}</del> : null;
        return side === 'after' ? <ins key={index}>{part.text}</ins> : null;
      })}
    </div>
  );
}

export function DiffLegend({ removals = true }: { removals?: boolean }) {
  return removals ? (
    <p class="hint">
      <del>Struck-through</del> words were removed, <ins>underlined</ins> words were added.
    </p>
  ) : (
    <p class="hint">
      <ins>Underlined</ins> words differ from the sample text.
    </p>
  );
}

export function Timing({ outcome }: { outcome: RefineOutcome }) {
  const { timing, roundTripMs } = outcome;
  const parts: string[] = [];
  if (timing?.totalMs !== undefined) parts.push(`service ${formatMs(timing.totalMs)}`);
  if (timing?.providerMs !== undefined) parts.push(`of which the provider ${formatMs(timing.providerMs)}`);
  if (timing?.totalMs !== undefined && timing.providerMs !== undefined) parts.push(`overhead ${formatMs(Math.max(0, timing.totalMs - timing.providerMs))}`);
  return (
    <p class="timing">
      Took {formatMs(roundTripMs)}
      {parts.length > 0 ? ` (${parts.join(', ')})` : ''}.
    </p>
  );
}

/** Who answered, what it cost, and whether the answer came from the cache. */
export function Spend({ outcome }: { outcome: RefineOutcome }) {
  const parts: string[] = [];
  if (outcome.variant) parts.push(`Variant ${outcome.variant}`);
  if (outcome.answeredBy) parts.push(`Answered by ${outcome.answeredBy}`);
  parts.push(describeUsage(outcome.usage));
  if (outcome.cache) parts.push(outcome.cache === 'HIT' ? 'from the cache' : 'not from the cache');
  return <p class="spend">{parts.join(' · ')}.</p>;
}

/** A judged check's own cost: the refine's line above does not include it. */
export function JudgeSpend({ usage }: { usage: RefineUsage }) {
  return <p class="spend judge-spend">The judge: {describeUsage(usage)}.</p>;
}

export function RefineFailure({ error, providerName }: { error: ApiError; providerName: ProviderNames }) {
  return (
    <div role="alert" class="error">
      <p>{plainError(error, providerName)}</p>
      {error.status !== 0 && (
        <details>
          <summary>Details</summary>
          <p>
            HTTP {error.status}
            {error.source === 'provider' ? ', reported by the provider' : ''}: <code>{error.message}</code>
          </p>
        </details>
      )}
    </div>
  );
}

/** The refine answered but its check did not (a judged check is refused when the key's budget is spent): the answer stands, unscored. */
export function CheckFailure({ error, providerName }: { error: ApiError; providerName: ProviderNames }) {
  return (
    <p role="alert" class="error">
      The answer could not be scored: {plainError(error, providerName)}
    </p>
  );
}
