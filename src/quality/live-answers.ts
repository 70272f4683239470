/**
 * The answer observer the services are given: an answer to a live request (its context names a
 * request id, src/usage/request-usage.ts) is counted with the request's key, id and endpoint;
 * an evaluation's samples, answered outside any request, are not live traffic.
 */
import type { Clock } from '../clock.js';
import { requestUsage } from '../usage/request-usage.js';
import type { Answer, AnswerObserver } from './answer-event.js';
import type { QualityRecorder } from './quality-recorder.js';

export class LiveAnswers implements AnswerObserver {
  constructor(
    private readonly recorder: QualityRecorder,
    private readonly clock: Clock,
  ) {}

  answered(answer: Answer): void {
    const context = requestUsage.getStore();
    if (context?.requestId === undefined) return;
    this.recorder.record({
      ...answer,
      endpoint: answer.endpoint ?? context.endpoint ?? 'refine',
      keyId: context.keyId,
      requestId: context.requestId,
      at: this.clock.now(),
    });
  }
}
