/**
 * The judge's contract as the domain takes and gives it (docs/voice-score.md, "The judge"):
 * who rates a text against the persona's descriptive attributes, and what it said.
 */
import type { SecretScrubber } from '../providers/secret-scrubber.js';

/** A provider asked to rate a text; its key is a secret exactly like a refine's providerApiKey. */
export interface JudgeRequest {
  provider: string;
  providerApiKey: string;
  model?: string;
}

/** One descriptive attribute, rated 1 (not at all) to 5 (fully), with the judge's one-sentence reason. */
export interface Rating {
  attribute: string;
  rating: number;
  reason: string;
}

/**
 * What the judge said about a text: its ratings (empty, with no provider call and a `warning`
 * that says so, when the persona sets no descriptive attribute), or why it could not rate it
 * (bad answers twice, a provider error, a timeout), the message scrubbed of every key. A failed
 * judge never fails the request: the score is then the deterministic one, without `voice`.
 */
export type JudgeVerdict = { provider: string; model: string; ratings: Rating[]; warning?: string } | { error: string };

/**
 * The verdict as it may leave the judge: every text in it that a provider's answer could have
 * put there (a reason, an error naming what the answer held, a provider's error) scrubbed of
 * every key of the request. Attribute names are the rubric's own, never the answer's.
 */
export function scrubbedVerdict(verdict: JudgeVerdict, scrubber: SecretScrubber): JudgeVerdict {
  if ('error' in verdict) return { error: scrubber.scrub(verdict.error) };
  const ratings = verdict.ratings.map((rating) => ({ ...rating, reason: scrubber.scrub(rating.reason) }));
  return { ...verdict, ratings, ...(verdict.warning === undefined ? {} : { warning: scrubber.scrub(verdict.warning) }) };
}
