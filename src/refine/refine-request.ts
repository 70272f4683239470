/**
 * What a refine is asked to do, as the domain takes it: POST /v1/refine's
 * body is adapted to this (src/schemas/refine.ts checks at compile time that
 * it is assignable; docs/architecture.md, "The domain owns its types").
 */
import type { PersonaPin } from '../personas/persona-history.js';
import type { JudgeRequest } from '../scoring/judge-verdict.js';

/** A provider to try when the one before it failed in a way that may pass. */
export interface FallbackRequest {
  provider: string;
  providerApiKey: string;
  model?: string;
}

export interface RefineRequest extends PersonaPin {
  /** Provider id; `rules` applies only the persona's deterministic rules and needs no key. */
  provider: string;
  /** The caller's own key for that provider, for this call only. */
  providerApiKey?: string;
  personaId: string;
  content: string;
  model?: string;
  stream?: boolean;
  fallbacks?: FallbackRequest[];
  /**
   * Has the final answer rated against the persona's descriptive attributes (docs/voice-score.md,
   * "The judge"): by this provider, or with `true` by the refine's own provider, key and model.
   */
  judge?: JudgeRequest | true;
}
