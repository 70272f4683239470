/** One refine whose failure is a result to show, not an exception. */
import { ApiError } from '../api/api-error.js';
import type { RefineOutcome, RefineRequest, StudioApi } from '../api/client.js';
import { type ProtectedItem, protectedItems } from './protected-items.js';
import { type DiffPart, wordDiff } from './word-diff.js';

export type RefineResult =
  | { outcome: RefineOutcome; diff: DiffPart[]; sample: string; protectedItems: ProtectedItem[] }
  | { error: ApiError };

/** `refine` chooses how (e.g. streamed); by default the plain refine. */
export async function runRefine(
  api: StudioApi,
  request: RefineRequest,
  refine: (request: RefineRequest) => Promise<RefineOutcome> = (plain) => api.refine(plain),
): Promise<RefineResult> {
  try {
    const outcome = await refine(request);
    return {
      outcome,
      diff: wordDiff(request.content, outcome.response),
      sample: request.content,
      protectedItems: protectedItems(request.content, outcome.response),
    };
  } catch (error) {
    if (error instanceof ApiError) return { error };
    throw error;
  }
}
