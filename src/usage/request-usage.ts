/**
 * Which API key a refine's usage belongs to, and who wants to hear about its
 * tokens (the key's token budget), without the refine pipeline knowing keys:
 * the HTTP layer runs the handler inside this context and the usage recorder
 * reads it when it counts (docs/keys-and-scopes.md, "Budgets").
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The routes whose answers are a persona's live traffic, held for review (docs/quality.md): refines and chat completions. */
export const ANSWER_ENDPOINTS = ['refine', 'chat'] as const;
export type AnswerEndpoint = (typeof ANSWER_ENDPOINTS)[number];

/**
 * What a usage row counts (docs/usage-cache-fallbacks.md, "Counting usage"): refines (checks and
 * evaluations with them), chat completions, or personas drafted from samples (POST /v1/personas/draft).
 */
export const USAGE_ENDPOINTS = [...ANSWER_ENDPOINTS, 'drafted'] as const;
export type UsageEndpoint = (typeof USAGE_ENDPOINTS)[number];

/** What quality on live traffic counts answers of (docs/quality.md): the answering endpoints, and checks, which spend no provider call of their own. */
export const QUALITY_ENDPOINTS = [...ANSWER_ENDPOINTS, 'check'] as const;
export type QualityEndpoint = (typeof QUALITY_ENDPOINTS)[number];

export interface RequestUsage {
  keyId: string;
  /** The route's (`config.usageEndpoint`); `refine` when absent. */
  endpoint?: UsageEndpoint;
  /**
   * The X-Request-Id of the live request this work answers (a refine, a chat completion, a
   * check): its answer counts in the persona's quality and may get feedback. Absent for an
   * evaluation's samples, which are not live traffic.
   */
  requestId?: string;
  /** Tokens (input + output) as each provider contribution is counted. */
  onTokens?: (tokens: number) => void;
}

export const requestUsage = new AsyncLocalStorage<RequestUsage>();
