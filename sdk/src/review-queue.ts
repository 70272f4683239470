/**
 * The review queue: a persona's retention policy (/v1/personas/{id}/retention) and the answers it
 * kept (/v1/personas/{id}/reviews), each resolved, optionally into an evaluation sample.
 */
import { allPages, searchOf } from './next-page.js';
import { personaPath } from './persona-paths.js';
import type { CallOptions, PostOptions, Transport } from './transport.js';
import type { ResolveReviewInput, RetentionPolicy, Review, ReviewStatus } from './types.js';

export class Retention {
  constructor(private readonly transport: Transport) {}

  /** `{ keep: 'none', days: 30 }` until one is set. */
  async get(personaId: string, options?: CallOptions): Promise<RetentionPolicy> {
    return (await this.transport.call<RetentionPolicy>({ method: 'GET', path: `${personaPath(personaId)}/retention` }, options)).body;
  }

  /**
   * Opt in to keeping answers with their text for `days` (1–90): `belowMinScore` those under the
   * version's `minScore` or with a required finding, `flagged` those and any rated `down` within a
   * day, `all` every one. `keep: 'none'` deletes what was kept. Returns the policy as set.
   */
  async set(personaId: string, policy: RetentionPolicy, options?: PostOptions): Promise<RetentionPolicy> {
    return (await this.transport.call<RetentionPolicy>({ method: 'PUT', path: `${personaPath(personaId)}/retention`, body: policy }, options)).body;
  }
}

export interface ReviewListQuery {
  /** `open` (default): in the queue; `resolved`: resolved and not deleted yet. */
  status?: ReviewStatus;
  /** Reviews read per request, 1–1000; default 100. */
  pageSize?: number;
}

export class Reviews {
  constructor(private readonly transport: Transport) {}

  /** Every kept answer of the persona with that status, newest first, read page by page. */
  async list(personaId: string, query: ReviewListQuery = {}, options?: CallOptions): Promise<Review[]> {
    const pathOf = (cursor: string | undefined) => `${personaPath(personaId)}/reviews${searchOf({ status: query.status, limit: query.pageSize, cursor })}`;
    return allPages<Review>(this.transport, pathOf, options);
  }

  /**
   * Resolves the review; with `addSample` (`{ name?, expect? }`) its `content` becomes a new
   * evaluation sample of the persona, whose id the answer carries as `sampleId`. A review resolved
   * already is a 409, so a retry never adds a second sample.
   */
  async resolve(personaId: string, requestId: string, input: ResolveReviewInput = {}, options?: PostOptions): Promise<Review> {
    const path = `${personaPath(personaId)}/reviews/${encodeURIComponent(requestId)}/resolve`;
    return (await this.transport.call<Review>({ method: 'POST', path, body: input }, options)).body;
  }
}
