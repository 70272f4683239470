/**
 * POST /v1/personas/draft (scope personas:write): a provider reads sample texts and drafts a
 * persona, each attribute with the quote that shows it. Nothing is stored: the draft becomes a
 * persona only when it is saved through POST /v1/personas. The provider key leaves the page only
 * in this request.
 */
import type { paths } from '../../../sdk/src/generated/openapi.js';
import { parseUsage, type RefineUsage } from './usage.js';
import type { Send } from './send.js';

type DraftRoute = paths['/v1/personas/draft']['post'];
export type DraftInput = DraftRoute['requestBody']['content']['application/json'];
export type DraftedPersona = DraftRoute['responses'][200]['content']['application/json'];
export type DraftWarning = NonNullable<DraftedPersona['warnings']>[number];

export interface DraftOutcome {
  draft: DraftedPersona;
  /** What drafting cost (`X-Usage`). */
  usage: RefineUsage;
}

export class DraftingApi {
  constructor(private readonly send: Send) {}

  /** A 400 ApiError for the `rules` provider (no model) or samples out of bounds; provider failures as a refine's. */
  async draft(input: DraftInput): Promise<DraftOutcome> {
    const response = await this.send('POST', '/personas/draft', { body: input });
    return { draft: (await response.json()) as DraftedPersona, usage: parseUsage(response.headers.get('x-usage')) };
  }
}
