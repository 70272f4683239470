/** One refine whose failure is a result to show, not an exception. */
import { ApiError } from '../api/api-error.js';
import type { RefineOutcome, RefineRequest, StudioApi } from '../api/client.js';
import type { CheckVerdict } from '../api/types.js';
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
    }
  | { error: ApiError };

/**
 * `refine` chooses how (e.g. streamed); by default the plain refine. The answer is then checked
 * with POST /v1/check against the same persona version: the refine only counts what is still
 * broken (`X-Persona-Violations`, a stream's `done.violations`) and scores it; the check also
 * says where, with each finding's severity and the score's parts.
 */
export async function runRefine(
  api: StudioApi,
  request: RefineRequest,
  refine: (request: RefineRequest) => Promise<RefineOutcome> = (plain) => api.refine(plain),
): Promise<RefineResult> {
  try {
    const outcome = await refine(request);
    const pinned = request.personaVersion === undefined ? {} : { personaVersion: request.personaVersion };
    const verdict = await api
      .check({ personaId: request.personaId, ...pinned, content: outcome.response, original: request.content })
      .catch((error: unknown) => {
        if (error instanceof ApiError) return undefined;
        throw error;
      });
    return {
      outcome,
      diff: wordDiff(request.content, outcome.response),
      sample: request.content,
      protectedItems: protectedItems(request.content, outcome.response),
      verdict,
    };
  } catch (error) {
    if (error instanceof ApiError) return { error };
    throw error;
  }
}
