/**
 * The persona score: how well a text matches its persona, 0–100, from three parts scored apart
 * (docs/voice-score.md, "The formula"):
 * - rules: 100, less a fixed penalty per finding of the text's own rules, required ones weighing more;
 * - facts: the share of the original's preserved items (numbers, links, code, placeholders) the text kept;
 * - voice: the judge's ratings of the descriptive attributes, 1→0 … 5→100 (only when judged).
 * Deterministic and monotone: the same findings always give the same score, and one more finding
 * never raises it.
 */
import type { PreservedOriginal, RuleFinding, Severity } from '../rules/index.js';
import type { JudgeVerdict } from './judge-verdict.js';

export const FINDING_PENALTY: Readonly<Record<Severity, number>> = { required: 10, recommended: 4 };

/** Each part's weight in `score`; facts count only when the original had items to keep, voice only when judged. */
export const SCORE_WEIGHTS = { rules: 40, facts: 20, voice: 40 } as const;

export interface SubScores {
  rules: number;
  facts: number;
  voice?: number;
}

export interface PersonaScore {
  score: number;
  scores: SubScores;
}

export interface ScoreInput {
  findings: readonly Pick<RuleFinding, 'rule' | 'severity'>[];
  /** How many preserved items the original had; undefined when there was no original. */
  originalItems: number | undefined;
  /** The judge's ratings, 1–5; undefined when not judged. */
  ratings?: readonly number[];
}

export function personaScore({ findings, originalItems, ratings }: ScoreInput): PersonaScore {
  let penalty = 0;
  let lost = 0;
  for (const finding of findings) {
    if (finding.rule === 'preserve') lost++;
    else penalty += FINDING_PENALTY[finding.severity];
  }
  const rules = Math.max(0, 100 - penalty);
  const facts = originalItems === undefined || originalItems === 0 ? 100 : Math.round((100 * Math.max(0, originalItems - lost)) / originalItems);
  const voice = ratings === undefined || ratings.length === 0 ? undefined : voiceScore(ratings);
  const parts: [number, number][] = [[rules, SCORE_WEIGHTS.rules]];
  if (originalItems !== undefined && originalItems > 0) parts.push([facts, SCORE_WEIGHTS.facts]);
  if (voice !== undefined) parts.push([voice, SCORE_WEIGHTS.voice]);
  const weight = parts.reduce((sum, [, w]) => sum + w, 0);
  const score = Math.round(parts.reduce((sum, [value, w]) => sum + value * w, 0) / weight);
  return { score, scores: voice === undefined ? { rules, facts } : { rules, facts, voice } };
}

/**
 * The score of a text (a refine's answer, a checked text): its findings, the items of what it was
 * rewritten from, and the judge's ratings when it gave some; a failed judge scores as no judge.
 */
export const scoreOf = (findings: ScoreInput['findings'], original: PreservedOriginal | undefined, verdict?: JudgeVerdict): PersonaScore =>
  personaScore({
    findings,
    originalItems: original?.items.length,
    ratings: verdict && 'ratings' in verdict ? verdict.ratings.map(({ rating }) => rating) : undefined,
  });

/** The mean rating mapped 1 → 0 … 5 → 100. */
export function voiceScore(ratings: readonly number[]): number {
  const mean = ratings.reduce((sum, rating) => sum + rating, 0) / ratings.length;
  return Math.round(((mean - 1) / 4) * 100);
}

/** No required finding remains and, when the persona sets `minScore`, the score reaches it. */
export function passes(findings: readonly Pick<RuleFinding, 'severity'>[], score: number, minScore: number | undefined): boolean {
  return !findings.some((finding) => finding.severity === 'required') && (minScore === undefined || score >= minScore);
}
