/** One refine whose failure is a result to show, not an exception. */
import { ApiError } from '../api/api-error.js';
import type { RefineOutcome, RefineRequest, StudioApi } from '../api/client.js';
import type { CheckRequest, CheckVerdict } from '../api/types.js';
import type { RefineUsage } from '../api/usage.js';
import { type ProtectedItem, protectedItems } from './protected-items.js';
import { type DiffPart, wordDiff } from './word-diff.js';

export type RefineResult =
  | {
      outcome: RefineOutcome;
      diff: DiffPart[];
      sample: string;
      protectedItems: ProtectedItem[];
      /** The answer's score and what the persona's rules still find in it, with where; undefined when the check failed. */
      verdict: CheckVerdict | undefined;
      /** What the check's judge cost (`X-Usage`); undefined when not judged. */
      judgeUsage: RefineUsage | undefined;
      /** Why the check failed (a judged one spends the key's budgets, so it can be refused); undefined when it answered. */
      checkFailure: ApiError | undefined;
    }
  | { error: ApiError };

export interface RefineRun {
  /** How to refine (e.g. streamed); by default the plain refine. */
  refine?: (request: RefineRequest) => Promise<RefineOutcome>;
  /** Have the check judge the answer's voice with the refine's own provider, key and model. */
  judge?: boolean;
}

/**
 * The judge a check gets from the refine it follows; none for a provider without a key (`rules`,
 * which has no model to judge with).
 */
function judgeOf({ provider, providerApiKey, model }: RefineRequest): CheckRequest['judge'] {
  return providerApiKey === undefined ? undefined : { provider, providerApiKey, ...(model === undefined ? {} : { model }) };
}

/**
 * The answer is checked with POST /v1/check against the same persona version: the refine only
 * counts what is still broken (`X-Persona-Violations`, a stream's `done.violations`) and scores
 * it; the check also says where, with each finding's severity and the score's parts. The judge
 * goes with the check, not the refine: a refine's ratings come back in a header without their
 * reasons, so judging there would take a second judge call to show them, and one place to judge
 * treats a streamed and a plain refine alike.
 */
export async function runRefine(api: StudioApi, request: RefineRequest, { refine = (plain) => api.refine(plain), judge = false }: RefineRun = {}): Promise<RefineResult> {
  try {
    const outcome = await refine(request);
    const pinned = {
      ...(request.personaVersion === undefined ? {} : { personaVersion: request.personaVersion }),
      ...(request.variant === undefined ? {} : { variant: request.variant }),
    };
    const judged = judge ? judgeOf(request) : undefined;
    let checkFailure: ApiError | undefined;
    const checked = await api
      .check({ personaId: request.personaId, ...pinned, content: outcome.response, original: request.content, ...(judged ? { judge: judged } : {}) })
      .catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
        checkFailure = error;
        return undefined;
      });
    return {
      outcome,
      diff: wordDiff(request.content, outcome.response),
      sample: request.content,
      protectedItems: protectedItems(request.content, outcome.response),
      verdict: checked?.verdict,
      judgeUsage: checked?.usage,
      checkFailure,
    };
  } catch (error) {
    if (error instanceof ApiError) return { error };
    throw error;
  }
}
