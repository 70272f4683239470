/**
 * What a refine's one repair call is told about the voice when its judged score is under the
 * persona's `minScore` (docs/voice-score.md, "The judge"): the low-rated attributes, each with
 * the judge's reason.
 */
import { quote } from '../personas/catalogue/prompt-lines.js';
import type { Rating } from './judge-verdict.js';

/** The attributes rated 3 or lower; when none is, those rated 4 (a score under the bar with only 4s and 5s). */
export function lowRated(ratings: readonly Rating[]): Rating[] {
  const low = ratings.filter(({ rating }) => rating <= 3);
  return low.length > 0 ? low : ratings.filter(({ rating }) => rating < 5);
}

/** '' when there is nothing to improve. */
export function voiceRepairInstructions(low: readonly Rating[]): string {
  if (low.length === 0) return '';
  return [
    "Revise the text so it matches the persona's voice better. A reviewer rated these attributes low (1 to 5), for these reasons:",
    ...low.map(({ attribute, rating, reason }) => `- ${quote(attribute)} (rated ${rating}): ${reason}`),
  ].join('\n');
}
