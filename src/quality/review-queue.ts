/**
 * The review queue (docs/quality.md, "The review queue"): a persona's retention policy, the
 * answers it kept, and resolving one, optionally into a new evaluation sample.
 */
import { DomainError, invalidRequest, notFound } from '../errors.js';
import { SAMPLE_CONTENT_MAX_LENGTH, type EvalSamples, type SampleExpectation } from '../evals/samples.js';
import type { PersonaService } from '../personas/persona-service.js';
import type { Actor } from '../storage/change-log.js';
import type { ReviewRepository, ReviewWithFeedback } from '../storage/review-repository.js';
import type { RuleFinding } from '../rules/index.js';
import type { AnswerEndpoint } from '../usage/request-usage.js';
import type { Rating } from './feedback-service.js';
import type { RetentionPolicies, RetentionPolicy } from './retention-policies.js';
import type { ReviewRecorder } from './review-recorder.js';

export const REVIEW_PAGE_SIZE = 100;
/** A resolve retries this often when another write moved the samples between its read and its write. */
const SAMPLE_ATTEMPTS = 3;

export type ReviewStatus = 'open' | 'resolved';

export interface Review {
  requestId: string;
  createdAt: string;
  version: number;
  /** A check answers nothing to keep. */
  endpoint: AnswerEndpoint;
  content: string;
  response: string;
  score: number;
  violations: RuleFinding[];
  feedback?: { rating: Rating; correctedText?: string; comment?: string };
  status: ReviewStatus;
  /** The evaluation sample its resolve added. */
  sampleId?: string;
}

export interface ReviewPage {
  reviews: Review[];
  nextCursor: string | undefined;
  limit: number;
}

export interface NewSample {
  name?: string;
  expect?: SampleExpectation;
}

const toReview = (row: ReviewWithFeedback): Review => ({
  requestId: row.request_id, createdAt: row.created_at, version: Number(row.version), endpoint: row.endpoint as AnswerEndpoint,
  content: row.content, response: row.response, score: Number(row.score), violations: JSON.parse(row.violations) as RuleFinding[],
  ...(row.rating === null
    ? {}
    : { feedback: { rating: row.rating, ...(row.corrected_text === null ? {} : { correctedText: row.corrected_text }), ...(row.comment === null ? {} : { comment: row.comment }) } }),
  status: row.status === 'resolved' ? 'resolved' : 'open',
  ...(row.sample_id === null ? {} : { sampleId: row.sample_id }),
});

export class ReviewQueue {
  constructor(
    private readonly repository: ReviewRepository,
    private readonly recorder: ReviewRecorder,
    private readonly policies: RetentionPolicies,
    private readonly personas: PersonaService,
    private readonly samples: EvalSamples,
  ) {}

  async retention(accountId: string, personaId: string): Promise<RetentionPolicy> {
    await this.personas.get(accountId, personaId);
    return this.policies.read(accountId, personaId);
  }

  /** `keep: none` deletes every answer kept for the persona. */
  async setRetention(accountId: string, personaId: string, policy: RetentionPolicy): Promise<RetentionPolicy> {
    await this.personas.get(accountId, personaId);
    await this.policies.set(accountId, personaId, policy);
    return policy;
  }

  async list(accountId: string, personaId: string, query: { status?: ReviewStatus; limit?: number; cursor?: string }): Promise<ReviewPage> {
    await this.personas.get(accountId, personaId);
    // What this instance holds is written first, so a caller reads the answers it was just given.
    await this.recorder.flush();
    const limit = query.limit ?? REVIEW_PAGE_SIZE;
    const rows = await this.repository.list(accountId, { personaId, status: query.status ?? 'open', beforeId: query.cursor, limit: limit + 1 });
    const page = rows.slice(0, limit);
    return { reviews: page.map(toReview), nextCursor: rows.length > limit ? page[page.length - 1]?.id : undefined, limit };
  }

  /**
   * Marks an open review resolved and, with `addSample`, appends its content to the persona's
   * samples. A resolved review is a 409: a retry never adds its sample twice.
   */
  async resolve(actor: Actor, personaId: string, requestId: string, addSample: NewSample | undefined): Promise<Review> {
    const { accountId } = actor;
    await this.personas.get(accountId, personaId);
    await this.recorder.flush();
    const found = await this.repository.find(accountId, personaId, requestId);
    if (found?.status === 'resolved') throw new DomainError('conflict', `the review of request "${requestId.slice(0, 128)}" is resolved already`);
    if (addSample && found && (found.content.length === 0 || found.content.length > SAMPLE_CONTENT_MAX_LENGTH)) {
      throw invalidRequest(`the review's content has ${found.content.length} characters and a sample 1 to ${SAMPLE_CONTENT_MAX_LENGTH}; resolve it without addSample`);
    }
    if (!found || !(await this.repository.resolve(accountId, personaId, requestId))) {
      // Resolved meanwhile by another request, or never in the queue.
      const now = await this.repository.find(accountId, personaId, requestId);
      if (now?.status === 'resolved') throw new DomainError('conflict', `the review of request "${requestId.slice(0, 128)}" is resolved already`);
      throw notFound(`no open review of request "${requestId.slice(0, 128)}" for this persona`);
    }
    if (addSample) {
      try {
        const sampleId = await this.appendSample(actor, personaId, { ...addSample, content: found.content });
        await this.repository.setSample(accountId, requestId, sampleId);
      } catch (error) {
        await this.repository.reopen(accountId, requestId);
        throw error;
      }
    }
    return toReview((await this.repository.find(accountId, personaId, requestId))!);
  }

  /** Appends to the samples under their ETag, read again when another write moved it; answers the new sample's id. */
  private async appendSample(actor: Actor, personaId: string, sample: NewSample & { content: string }): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const set = await this.samples.get(actor.accountId, personaId);
      try {
        const written = await this.samples.replace(actor, personaId, [...set.samples, sample], set.etag);
        return written.samples[written.samples.length - 1]!.id;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'precondition_failed') || attempt === SAMPLE_ATTEMPTS) throw error;
      }
    }
  }
}
