/**
 * One answer that stood, as quality on live traffic counts it (docs/quality.md): who asked,
 * which persona version answered, its score and findings. The text asked and answered comes
 * along only for the review queue, which keeps it when the persona's retention policy says so.
 */
import type { RuleFinding } from '../rules/index.js';
import type { QualityEndpoint } from '../usage/request-usage.js';

export interface AnswerEvent {
  accountId: string;
  /** The API key that asked. */
  keyId: string;
  personaId: string;
  version: number;
  endpoint: QualityEndpoint;
  /** The request's X-Request-Id: what feedback names the answer by. */
  requestId: string;
  score: number;
  /** The version's `minScore`, when it sets one. */
  minScore: number | undefined;
  findings: readonly Pick<RuleFinding, 'rule' | 'severity'>[];
  /**
   * Tokens the providers reported for the answer, every call of it (fallbacks, the repair, the
   * judge): X-Usage's sums. 0 for the rules provider and cache hits, which call none.
   */
  inputTokens: number;
  outputTokens: number;
  /** A refine's or chat completion's text, for the review queue; a check has none. */
  exchange?: Exchange;
  /** Epoch milliseconds. */
  at: number;
}

/** The caller's text (a refine's `content`, a chat completion's last user message), the answer (scrubbed of the request's keys) and its findings in full. */
export interface Exchange {
  content: string;
  response: string;
  violations: readonly RuleFinding[];
}

/** What a use case knows of its answer; the request's identity comes from its context. */
export type Answer = Omit<AnswerEvent, 'keyId' | 'requestId' | 'at' | 'endpoint'> & { endpoint?: QualityEndpoint };

/** Hears of every answer that stands; a failed or abandoned one never reaches it. */
export interface AnswerObserver {
  answered(answer: Answer): void;
}

export const unobserved: AnswerObserver = { answered: () => {} };

export const utcDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
