/**
 * The judge's contract as the domain takes and gives it (docs/voice-score.md, "The judge"):
 * who rates a text against the persona's descriptive attributes, and what it said.
 */

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
 * What the judge said about a text: its ratings (empty, with no provider call, when the persona
 * sets no descriptive attribute), or why it could not rate it (bad answers twice, a provider
 * error, a timeout), the message scrubbed of every key. A failed judge never fails the request:
 * the score is then the deterministic one, without `voice`.
 */
export type JudgeVerdict = { provider: string; model: string; ratings: Rating[] } | { error: string };
