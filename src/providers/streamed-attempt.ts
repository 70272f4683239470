/**
 * One streamed attempt. Until its first token (text, or a part of a tool call) it is classified exactly like a
 * whole-answer attempt (attempt.ts), so an error status, a refused key, a rate limit, a
 * cut or an error event before any text is retried or answered as JSON like any other
 * failure. From the first token on, the text is the caller's: a later failure ends the
 * stream with the DomainError that failure would have been.
 */
import {
  type Attempt, type AttemptTarget, type Prompt, type ProviderFailure,
  classified, cutShortFailure, errorAnswerFailure, isSuccess, MAX_ANSWER_BYTES, readCapped, unusableAnswer,
} from './attempt.js';
import { serverSentEventData, StreamTooLargeError } from './wire/server-sent-events.js';
import type { HttpResponse } from './wire/transport.js';
import type { FinishReason, ToolCallDelta } from './wire/conversation.js';
import { reportedTokens, type TokenUsage } from './wire/wire-format.js';

/** A piece of a streamed answer: text, or a part of a tool call. */
export type AnswerPiece = string | ToolCallDelta;

export interface StreamedText {
  /**
   * The answer's first pieces: the text up to and including the first text that holds more
   * than whitespace, as one piece; or that text so far (if any) and the first part of a tool call.
   */
  first: AnswerPiece[];
  /** The pieces after the first; throws the failure's DomainError if the stream breaks. */
  rest: AsyncGenerator<AnswerPiece, void, undefined>;
  /**
   * The tokens the provider reported so far (some report input at the start, output at the end):
   * a stream cut early still counts what was reported. A member is absent while unreported.
   */
  usage(): Partial<TokenUsage>;
  /** Why the model stopped, once the provider said (near the end). */
  finishReason(): FinishReason | undefined;
}

type Step = { text: string } | { toolCall: ToolCallDelta } | { end: true } | { failure: ProviderFailure };

/** What a stream reported besides its pieces, updated as its events arrive. */
interface Reported {
  usage: Partial<TokenUsage>;
  finishReason?: FinishReason;
}

async function* steps(target: AttemptTarget, response: HttpResponse, reported: Reported): AsyncGenerator<Step> {
  const read = target.wire.streamReader();
  try {
    for await (const data of serverSentEventData(response.body, MAX_ANSWER_BYTES)) {
      let json: unknown = data;
      if (data !== '[DONE]') {
        try {
          json = JSON.parse(data);
        } catch {
          yield { failure: unusableAnswer(target, response.status, 'not_json') };
          return;
        }
      }
      const event = read(json);
      if (event === undefined) continue;
      if (event.usage) Object.assign(reported.usage, event.usage);
      if (event.finishReason) reported.finishReason = event.finishReason;
      if (event.error) {
        yield { failure: errorAnswerFailure(target, event.error.status, undefined, event.error.body) };
        return;
      }
      if (event.text) yield { text: event.text };
      for (const toolCall of event.toolCalls ?? []) yield { toolCall };
      if (event.end) {
        yield { end: true };
        return;
      }
    }
  } catch (error) {
    if (!(error instanceof StreamTooLargeError)) throw error;
    yield { failure: unusableAnswer(target, response.status, 'too_large') };
    return;
  }
  // The body ended without the provider's end marker: the answer was cut short.
  yield { failure: cutShortFailure(target) };
}

/** A streamed attempt: resolves once the answer holds more than whitespace or a tool call, or with the failure before that. */
export function streamedAttempt(target: AttemptTarget, prompt: Prompt): Attempt<StreamedText> {
  const request = target.wire.request(target.apiKey, prompt.model, prompt.conversation, true);
  return (signal) =>
    classified(target, signal, async () => {
      const response = await target.transport(target.baseUrl, request, signal);
      if (!isSuccess(response)) {
        const raw = await readCapped(response.body);
        const failure = raw === undefined ? unusableAnswer(target, response.status, 'too_large') : errorAnswerFailure(target, response.status, response.headers, raw);
        return { ok: false, failure };
      }
      const reported: Reported = { usage: {} };
      const events = steps(target, response, reported);
      let text = '';
      let toolCall: ToolCallDelta | undefined;
      while (text.trim() === '' && toolCall === undefined) {
        const { value: step, done } = await events.next();
        const failure =
          done ? cutShortFailure(target)
          : 'failure' in step ? step.failure
          : 'end' in step ? unusableAnswer(target, response.status, 'no_text')
          : undefined;
        if (failure) {
          await events.return(undefined);
          return { ok: false, failure };
        }
        if ('text' in step) text += step.text;
        if ('toolCall' in step) toolCall = step.toolCall;
      }
      const first: AnswerPiece[] = [...(text === '' ? [] : [text]), ...(toolCall ? [toolCall] : [])];
      return { ok: true, value: { first, rest: rest(events), usage: () => reportedTokens(reported.usage), finishReason: () => reported.finishReason } };
    });
}

async function* rest(events: AsyncGenerator<Step>): AsyncGenerator<AnswerPiece, void, undefined> {
  try {
    for await (const step of events) {
      if ('failure' in step) throw step.failure.error;
      if ('end' in step) return;
      yield 'text' in step ? step.text : step.toolCall;
    }
  } finally {
    // Stopping early (the caller went away) closes the body, which frees or drops the connection.
    await events.return(undefined);
  }
}
