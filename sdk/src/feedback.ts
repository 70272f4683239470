/** What callers say of the answers: /v1/feedback and /v1/personas/{id}/feedback (docs/quality.md on the server). */
import { allPages, searchOf } from './next-page.js';
import { personaPath } from './persona-paths.js';
import type { CallOptions, PostOptions, Transport } from './transport.js';
import type { Feedback, FeedbackInput, FeedbackRating } from './types.js';

export interface FeedbackListQuery {
  /** Only `up` or only `down`. */
  rating?: FeedbackRating;
  /** Feedback read per request, 1–1000; default 100. */
  pageSize?: number;
}

export class FeedbackApi {
  constructor(private readonly transport: Transport) {}

  /**
   * Rates the answer of a refine or chat completion of the last 30 days, named by its request id
   * (`result.requestId`); another account's, an unknown or an older one is a 404. A second
   * feedback on the same answer replaces the first.
   */
  async create(input: FeedbackInput, options?: PostOptions): Promise<Feedback> {
    return (await this.transport.call<Feedback>({ method: 'POST', path: '/feedback', body: input }, options)).body;
  }

  /** Every feedback on the persona's answers, newest first, read page by page. */
  async list(personaId: string, query: FeedbackListQuery = {}, options?: CallOptions): Promise<Feedback[]> {
    const pathOf = (cursor: string | undefined) => `${personaPath(personaId)}/feedback${searchOf({ rating: query.rating, limit: query.pageSize, cursor })}`;
    return allPages<Feedback>(this.transport, pathOf, options);
  }
}
