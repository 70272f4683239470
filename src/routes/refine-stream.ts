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
import type { RefineStream, StreamEnd } from '../refine/refine-stream.js';
import { countViolations, summarizeViolations } from '../rules/index.js';
import type { StreamDelta, StreamDone } from '../schemas/refine.js';

function doneEvent(end: StreamEnd): StreamDone {
  const usage = end.usage === undefined ? {} : { inputTokens: end.usage.inputTokens, outputTokens: end.usage.outputTokens };
  return { response: end.response, violations: countViolations(end.violations), usage };
}

/** What a replay with the same Idempotency-Key gets: the whole text as one delta, then the same `done`. */
function replayBody(done: StreamDone): string {
  const delta: StreamDelta = { text: done.response };
  return (done.response === '' ? '' : formatEvent('delta', delta)) + formatEvent('done', done);
}

export interface StreamAnswer {
  request: FastifyRequest;
  reply: FastifyReply;
  refined: RefineStream;
  settlement: IdempotencySettlement | undefined;
  /** Runs once the stream has ended, however it ended. */
  finished: () => void;
}

export function sendRefineStream({ request, reply, refined, settlement, finished }: StreamAnswer): FastifyReply {
  const events = new EventStream();
  void (async () => {
    let stored = false;
    try {
      let next = await refined.pieces.next();
      while (!next.done) {
        events.send('delta', { text: next.value } satisfies StreamDelta);
        next = await refined.pieces.next();
      }
      if (next.value.diverged) request.log.error('a streamed refine showed text its final result does not start with');
      const done = doneEvent(next.value);
      // Stored before `done` leaves, so a client that saw it and retries finds it.
      if (settlement) {
        const headers: Record<string, string> = { 'content-type': EVENT_STREAM_HEADERS['content-type'], 'x-persona-version': String(refined.personaVersion) };
        if (next.value.violations.length > 0) headers['x-persona-violations'] = summarizeViolations(next.value.violations);
        await settlement.complete({ status: 200, headers, body: replayBody(done) });
        stored = true;
      }
      events.send('done', done);
    } catch (error) {
      // Nobody is left to tell when the client went away.
      if (!(error instanceof ClientAbortedError)) {
        const failure = answeredError(error, request);
        events.send('error', { error: failure.status, message: failure.message });
      }
    } finally {
      // A failed stream is not an answer to keep: the retry runs again.
      if (settlement && !stored) await settlement.release().catch((error: unknown) => request.log.warn({ err: error }, 'idempotency key not freed'));
      events.end();
      finished();
    }
  })();
  return reply.code(200).headers(EVENT_STREAM_HEADERS).header('x-persona-version', String(refined.personaVersion)).send(events.body);
}
