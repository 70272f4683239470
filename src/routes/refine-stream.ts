/**
 * `"stream": true` on POST /v1/refine: the refined text as server-sent events.
 * Everything that fails before the first text is an ordinary JSON error (the caller
 * throws before this runs); from the first byte on, exactly one `done` or `error`
 * event ends the stream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientAbortedError } from '../errors.js';
import { answeredError } from '../http/error-handler.js';
import { EVENT_STREAM_HEADERS, EventStream, formatEvent } from '../http/event-stream.js';
import type { IdempotencySettlement } from '../http/idempotency.js';
import type { RefineRun, RunEnd } from '../refine/refine-run.js';
import { countViolations } from '../rules/index.js';
import type { StreamDelta, StreamDone } from '../schemas/refine.js';
import { reportedUsage } from '../usage/usage-tally.js';
import { answerHeaders, runHeaders } from './refine-answer.js';

function doneEvent(end: RunEnd): StreamDone {
  return {
    response: end.response, violations: countViolations(end.violations), score: end.score.score, usage: reportedUsage(end.usage),
    ...(end.judge ? { judge: end.judge } : {}), ...(end.replaced ? { replaced: true } : {}),
  };
}

/** What a replay with the same Idempotency-Key gets: the whole text as one delta, then the same `done`. */
function replayBody(done: StreamDone): string {
  const delta: StreamDelta = { text: done.response };
  return (done.response === '' ? '' : formatEvent('delta', delta)) + formatEvent('done', done);
}

export interface StreamAnswer {
  request: FastifyRequest;
  reply: FastifyReply;
  refined: RefineRun;
  settlement: IdempotencySettlement | undefined;
  /** Runs once the stream has ended, however it ended. */
  finished: () => void;
  /** Counts a stream whose `done` replaced what it had shown. */
  onReplaced: () => void;
}

export function sendRefineStream({ request, reply, refined, settlement, finished, onReplaced }: StreamAnswer): FastifyReply {
  const events = new EventStream();
  void (async () => {
    let stored = false;
    try {
      let next = await refined.pieces.next();
      while (!next.done) {
        // Waits while the client has not read what was sent: the provider's stream is read no faster.
        await events.send('delta', { text: next.value } satisfies StreamDelta);
        next = await refined.pieces.next();
      }
      if (next.value.replaced) {
        request.log.error('a streamed refine showed text its final result does not start with; done carries the result');
        onReplaced();
      }
      const done = doneEvent(next.value);
      // Stored before `done` leaves, so a client that saw it and retries finds it.
      if (settlement) {
        const headers = { ...EVENT_STREAM_HEADERS, ...answerHeaders(refined, next.value) };
        await settlement.complete({ status: 200, headers, body: replayBody(done) });
        stored = true;
      }
      await events.send('done', done);
    } catch (error) {
      // Nobody is left to tell when the client went away.
      if (!(error instanceof ClientAbortedError)) {
        const failure = answeredError(error, request);
        await events.send('error', { error: failure.status, message: failure.message });
      }
    } finally {
      // A failed stream is not an answer to keep: the retry runs again.
      if (settlement && !stored) await settlement.release().catch((error: unknown) => request.log.warn({ err: error }, 'idempotency key not freed'));
      events.end();
      finished();
    }
  })();
  return reply.code(200).headers({ ...EVENT_STREAM_HEADERS, ...runHeaders(refined) }).send(events.body);
}
