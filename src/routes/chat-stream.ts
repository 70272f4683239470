/**
 * `"stream": true` on POST /v1/chat/completions: OpenAI's chunks as `data:` lines, the first
 * with `delta.role`, the text as the refine run shows it (nothing the final answer drops is
 * ever sent), the tool calls and the finish reason at the run's end, the usage chunk when
 * asked for, then `data: [DONE]`. Failures before the first text are ordinary errors (the
 * caller throws before this runs); after it, OpenAI's error body as one last `data:` line.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientAbortedError } from '../errors.js';
import { answeredError } from '../http/error-handler.js';
import { EVENT_STREAM_HEADERS, EventStream } from '../http/event-stream.js';
import type { IdempotencySettlement } from '../http/idempotency.js';
import { openAiErrorBody, openAiStatus } from '../http/openai-error.js';
import type { RefineRun, RunEnd } from '../refine/refine-run.js';
import type { ChatCompletionChunk } from '../schemas/chat.js';
import { chatAnswerHeaders, chunk, type CompletionIdentity, endChunks, usageChunk } from './chat-answer.js';
import { runHeaders } from './refine-answer.js';

const DONE = '[DONE]';

/** What a replay with the same Idempotency-Key gets: the role, the whole text as one delta, then the same end. */
function replayBody(identity: CompletionIdentity, end: RunEnd, includeUsage: boolean): string {
  const chunks: ChatCompletionChunk[] = [
    chunk(identity, { role: 'assistant', content: '' }),
    ...(end.response === '' ? [] : [chunk(identity, { content: end.response })]),
    ...endChunks(identity, end),
    ...(includeUsage ? [usageChunk(identity, end)] : []),
  ];
  return [...chunks.map((one) => JSON.stringify(one)), DONE].map((data) => `data: ${data}\n\n`).join('');
}

export interface ChatStreamAnswer {
  request: FastifyRequest;
  reply: FastifyReply;
  run: RefineRun;
  identity: CompletionIdentity;
  includeUsage: boolean;
  settlement: IdempotencySettlement | undefined;
  /** Runs once the stream has ended, however it ended. */
  finished: () => void;
  /** Counts a stream whose end is not what it showed. */
  onReplaced: () => void;
}

export function sendChatStream({ request, reply, run, identity, includeUsage, settlement, finished, onReplaced }: ChatStreamAnswer): FastifyReply {
  const events = new EventStream();
  const send = (data: ChatCompletionChunk) => events.sendData(JSON.stringify(data));
  void (async () => {
    let stored = false;
    try {
      await send(chunk(identity, { role: 'assistant', content: '' }));
      let next = await run.pieces.next();
      while (!next.done) {
        // Waits while the client has not read what was sent: the provider's stream is read no faster.
        await send(chunk(identity, { content: next.value }));
        next = await run.pieces.next();
      }
      const end = next.value;
      // A chunk sent cannot be taken back: what was shown stands, and the bug is logged and counted.
      if (end.replaced) {
        request.log.error('a streamed chat completion showed text its final result does not start with');
        onReplaced();
      }
      if (settlement) {
        const headers = { ...EVENT_STREAM_HEADERS, ...chatAnswerHeaders(run, end) };
        await settlement.complete({ status: 200, headers, body: replayBody(identity, end, includeUsage) });
        stored = true;
      }
      for (const last of endChunks(identity, end)) await send(last);
      if (includeUsage) await send(usageChunk(identity, end));
      await events.sendData(DONE);
    } catch (error) {
      // Nobody is left to tell when the client went away.
      if (!(error instanceof ClientAbortedError)) {
        const failure = answeredError(error, request);
        await events.sendData(JSON.stringify(openAiErrorBody(failure, openAiStatus(failure))));
      }
    } finally {
      // A failed stream is not an answer to keep: the retry runs again.
      if (settlement && !stored) await settlement.release().catch((error: unknown) => request.log.warn({ err: error }, 'idempotency key not freed'));
      events.end();
      finished();
    }
  })();
  return reply.code(200).headers({ ...EVENT_STREAM_HEADERS, ...runHeaders(run) }).send(events.body);
}
