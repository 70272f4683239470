/**
 * The answer observer the services are given: an answer to a live request (its context names a
 * request id, src/usage/request-usage.ts) is counted with the request's key, id and endpoint;
 * an evaluation's samples, answered outside any request, are not live traffic. The review queue
 * hears of the same answers (docs/quality.md, "The review queue").
 */
import type { Clock } from '../clock.js';
import { requestUsage } from '../usage/request-usage.js';
import type { Answer, AnswerEvent, AnswerObserver } from './answer-event.js';
import type { QualityRecorder } from './quality-recorder.js';

/** Decides, without I/O, whether to hold an answer for review. */
export interface ReviewCandidates {
  consider(event: AnswerEvent): void;
}

export class LiveAnswers implements AnswerObserver {
  constructor(
    private readonly recorder: QualityRecorder,
    private readonly clock: Clock,
    private readonly reviews?: ReviewCandidates,
  ) {}

  answered(answer: Answer): void {
    const context = requestUsage.getStore();
    if (context?.requestId === undefined) return;
    const event: AnswerEvent = {
      ...answer,
      // Only refines and chat completions answer inside a persona; a draft answers none.
      endpoint: answer.endpoint ?? (context.endpoint === 'chat' ? 'chat' : 'refine'),
      keyId: context.keyId,
      requestId: context.requestId,
      at: this.clock.now(),
    };
    this.recorder.record(event);
    this.reviews?.consider(event);
  }
}
