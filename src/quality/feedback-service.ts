/**
 * Feedback on live answers (POST /v1/feedback, GET /v1/personas/{id}/feedback; docs/quality.md,
 * "Feedback"): a rating of the answer to one request, named by its X-Request-Id, moved into the
 * quality of that answer's day, persona version and endpoint.
 */
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { uuidv7 } from '../ids.js';
import type { PersonaService } from '../personas/persona-service.js';
import type { FeedbackRepository, FeedbackRow, LoggedAnswer } from '../storage/feedback-repository.js';
import { isUniqueViolation } from '../storage/storage-errors.js';
import type { QualityRecorder } from './quality-recorder.js';

/** How long an answer can get feedback: the answer log keeps its rows this long. */
export const FEEDBACK_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;
export const FEEDBACK_PAGE_SIZE = 100;
/** Tries of remove-then-insert: each lost race means another feedback for the request was stored. */
const MAX_ATTEMPTS = 10;

export type Rating = 'up' | 'down';

export interface Feedback {
  id: string;
  requestId: string;
  personaId: string;
  version: number;
  rating: Rating;
  correctedText?: string;
  comment?: string;
  createdAt: string;
}

export interface FeedbackInput {
  requestId: string;
  rating: Rating;
  correctedText?: string;
  comment?: string;
}

export interface FeedbackPage {
  feedback: Feedback[];
  nextCursor: string | undefined;
  limit: number;
}

const toFeedback = (row: FeedbackRow): Feedback => ({
  id: row.id, requestId: row.request_id, personaId: row.persona_id, version: Number(row.version), rating: row.rating,
  ...(row.corrected_text === null ? {} : { correctedText: row.corrected_text }),
  ...(row.comment === null ? {} : { comment: row.comment }),
  createdAt: row.created_at,
});

const ratingDelta = (rating: Rating, sign: 1 | -1) => (rating === 'up' ? [sign, 0] : [0, sign]) as [number, number];

export class FeedbackService {
  constructor(
    private readonly repository: FeedbackRepository,
    private readonly recorder: QualityRecorder,
    private readonly personas: PersonaService,
    private readonly clock: Clock,
    /** USAGE_FLUSH_MS: how long another instance may hold an answer in its buffer before writing it. */
    private readonly flushMs: number,
  ) {}

  async give(accountId: string, keyId: string, input: FeedbackInput): Promise<Feedback> {
    const answer = await this.answer(accountId, input.requestId);
    const row: FeedbackRow = {
      id: uuidv7(this.clock.now()), account_id: accountId, request_id: answer.requestId, persona_id: answer.personaId,
      version: answer.version, endpoint: answer.endpoint, answer_day: answer.answeredAt.slice(0, 10), rating: input.rating,
      corrected_text: input.correctedText ?? null, comment: input.comment ?? null, created_by: keyId, created_at: new Date(this.clock.now()).toISOString(),
    };
    // Remove-then-insert, again on a race with another feedback for the same request: every rating
    // taken back was one stored, every rating counted is one stored, without a transaction.
    for (let attempt = 1; ; attempt++) {
      const replaced = await this.repository.remove(accountId, answer.requestId);
      if (replaced) this.recorder.rated(answer, ...ratingDelta(replaced.rating, -1));
      try {
        await this.repository.insert(row);
        break;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt === MAX_ATTEMPTS) throw error;
      }
    }
    this.recorder.rated(answer, ...ratingDelta(input.rating, 1));
    return toFeedback(row);
  }

  async list(accountId: string, personaId: string, query: { rating?: Rating; limit?: number; cursor?: string }): Promise<FeedbackPage> {
    await this.personas.get(accountId, personaId);
    const limit = query.limit ?? FEEDBACK_PAGE_SIZE;
    // One extra row tells whether there is a next page without a second query.
    const rows = await this.repository.list(accountId, { personaId, rating: query.rating, beforeId: query.cursor, limit: limit + 1 });
    const feedback = rows.slice(0, limit).map(toFeedback);
    return { feedback, nextCursor: rows.length > limit ? feedback[feedback.length - 1]?.id : undefined, limit };
  }

  /**
   * The logged answer, or 404. Feedback may follow its answer at once: this instance's log is
   * written first, and since the answer may sit in another instance's buffer, looked up once
   * more after one flush interval before the 404.
   */
  private async answer(accountId: string, requestId: string): Promise<LoggedAnswer> {
    const since = new Date(this.clock.now() - FEEDBACK_WINDOW_DAYS * DAY_MS).toISOString();
    await this.recorder.flush();
    let answer = await this.repository.answer(accountId, requestId, since);
    if (!answer) {
      await new Promise<void>((resolve) => this.clock.after(this.flushMs, resolve));
      answer = await this.repository.answer(accountId, requestId, since);
    }
    if (!answer) {
      throw notFound(`no answer to request "${requestId.slice(0, 128)}" of this account in the last ${FEEDBACK_WINDOW_DAYS} days: feedback names the X-Request-Id of a refine or chat completion`);
    }
    return answer;
  }
}
