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
import { countViolations, summarizeViolations } from '../rules/index.js';
import type { JudgeVerdict } from '../scoring/judge-verdict.js';
import type { StreamDelta, StreamDone } from '../schemas/refine.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Text as a header value: printable ASCII as it is, `%` and everything else percent-encoded (UTF-8). */
const headerSafe = (text: string) => text.replace(LONE_SURROGATE, '\uFFFD').replace(/[^\x20-\x24\x26-\x7E]+/g, encodeURIComponent);

/**
 * A judged refine's headers (docs/voice-score.md, "The judge"): `X-Persona-Ratings:
 * tone=4,my%20key=5` (attribute names percent-encoded, absent when nothing was rated),
 * `X-Persona-Judge-Error` when the judge failed, or `X-Persona-Judge-Warning` when it had nothing to rate.
 */
export function judgeHeaders(verdict: JudgeVerdict | undefined): Record<string, string> {
  if (verdict === undefined) return {};
  if ('error' in verdict) return { 'x-persona-judge-error': headerSafe(verdict.error) };
  if (verdict.warning !== undefined) return { 'x-persona-judge-warning': headerSafe(verdict.warning) };
  if (verdict.ratings.length === 0) return {};
  return { 'x-persona-ratings': verdict.ratings.map(({ attribute, rating }) => `${encodeURIComponent(attribute.replace(LONE_SURROGATE, '\uFFFD'))}=${rating}`).join(',') };
}

function doneEvent(end: RunEnd): StreamDone {
  // The members of X-Usage: a token sum only while every answer reported it.
  const usage = {
    ...(end.usage.inputKnown ? { inputTokens: end.usage.inputTokens } : {}),
    ...(end.usage.outputKnown ? { outputTokens: end.usage.outputTokens } : {}),
    providerCalls: end.usage.providerCalls,
  };
  return {
    response: end.response, violations: countViolations(end.violations), score: end.score.score, usage,
    ...(end.judge ? { judge: end.judge } : {}), ...(end.replaced ? { replaced: true } : {}),
  };
}

/** What a replay with the same Idempotency-Key gets: the whole text as one delta, then the same `done`. */
function replayBody(done: StreamDone): string {
  const delta: StreamDelta = { text: done.response };
  return (done.response === '' ? '' : formatEvent('delta', delta)) + formatEvent('done', done);
}

/** `X-Provider: <id>/<model>`: known once the first text arrived, before any byte of the stream. */
const providerHeader = (refined: RefineRun) => (refined.model === undefined ? refined.provider : `${refined.provider}/${refined.model}`);

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
        const headers: Record<string, string> = {
          'content-type': EVENT_STREAM_HEADERS['content-type'], 'x-persona-version': String(refined.personaVersion), 'x-provider': providerHeader(refined),
        };
        if (next.value.violations.length > 0) headers['x-persona-violations'] = summarizeViolations(next.value.violations);
        headers['x-persona-score'] = String(done.score);
        Object.assign(headers, judgeHeaders(next.value.judge));
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
  reply.code(200).headers(EVENT_STREAM_HEADERS).header('x-persona-version', String(refined.personaVersion)).header('x-provider', providerHeader(refined));
  if (refined.cache) {
    reply.header('x-cache', refined.cache.hit ? 'HIT' : 'MISS');
    if (refined.cache.hit) reply.header('age', String(refined.cache.ageSeconds));
  }
  return reply.send(events.body);
}
