import type { TermEntry } from '../personas/catalogue/term-base.js';

/** Rule ids, in the order summaries and repair instructions list them. */
export const RULE_IDS = [
  'vocabulary',
  'casing',
  'avoid',
  'emoji',
  'signOff',
  'maxWords',
  'maxSentences',
  'preserve',
  'terms',
] as const;

export type RuleId = (typeof RULE_IDS)[number];

/** What a finding weighs: a required one fails the text, a recommended one only lowers its score. */
export const SEVERITIES = ['required', 'recommended'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface RuleViolation {
  rule: RuleId;
  message: string;
  /**
   * Offsets in UTF-16 code units into the checked text: `text.slice(start, end)` is the
   * offending span. Whole-text rules (maxWords, maxSentences) span the whole text; a
   * missing sign-off is the empty span at the end. `preserve` points into the original
   * instead: the item the text lost.
   */
  start: number;
  end: number;
  /** `terms` findings: the term base entry's `term` the finding is about. */
  term?: string;
}

/** A violation as checks report it: with the severity the persona gave its rule. */
export interface RuleFinding extends RuleViolation {
  severity: Severity;
}

export interface VocabularyEntry {
  /** The term to replace, as configured (matched case-insensitively). */
  readonly from: string;
  /** The preferred term, as configured (its own capitals are kept). */
  readonly to: string;
}

/** Parsed, validated rules. Plain data: safe to log, cache or serialise. */
export interface PersonaRules {
  readonly vocabulary: readonly VocabularyEntry[];
  readonly casing: readonly string[];
  readonly avoid: readonly string[];
  readonly stripEmoji: boolean;
  readonly signOff: string | null;
  readonly maxWords: number | null;
  readonly maxSentences: number | null;
  /** Numbers, links, code and placeholders of the original must survive (on unless opted out). */
  readonly preserve: boolean;
  /** The term base (`terms`): preferred terms fixed in place, forbidden ones flagged, kept ones checked against the original. */
  readonly terms: readonly TermEntry[];
  /** The persona's BCP 47 locale: the word rules find words as Intl.Segmenter does for it; null keeps the script-based matching. */
  readonly locale: string | null;
  /** Rules whose findings are recommended rather than required (`enforce`); the others are required. */
  readonly recommended: readonly RuleId[];
}
