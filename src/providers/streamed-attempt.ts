/**
 * One streamed attempt. Until its first token it is classified exactly like a
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
import { reportedTokens, type TokenUsage } from './wire/wire-format.js';

export interface StreamedText {
  /** The first text of the answer: it holds more than whitespace. */
  first: string;
  /** The pieces after the first; throws the failure's DomainError if the stream breaks. */
  rest: AsyncGenerator<string, void, undefined>;
  /**
   * The tokens the provider reported so far (some report input at the start, output at the end):
   * a stream cut early still counts what was reported. A member is absent while unreported.
   */
  usage(): Partial<TokenUsage>;
}

type Step = { text: string } | { end: true } | { failure: ProviderFailure };

async function* steps(target: AttemptTarget, response: HttpResponse, usage: Partial<TokenUsage>): AsyncGenerator<Step> {
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
      const event = target.wire.streamEvent(json);
      if (event === undefined) continue;
      if (event.usage) Object.assign(usage, event.usage);
      if (event.error) {
        yield { failure: errorAnswerFailure(target, event.error.status, undefined, event.error.body) };
        return;
      }
      if (event.text) yield { text: event.text };
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

/** A streamed attempt: resolves once the answer holds more than whitespace, or with the failure before that. */
export function streamedAttempt(target: AttemptTarget, prompt: Prompt): Attempt<StreamedText> {
  const request = target.wire.request(target.apiKey, prompt.model, prompt.system, prompt.user, true);
  return (signal) =>
    classified(target, signal, async () => {
      const response = await target.transport(target.baseUrl, request, signal);
      if (!isSuccess(response)) {
        const raw = await readCapped(response.body);
        const failure = raw === undefined ? unusableAnswer(target, response.status, 'too_large') : errorAnswerFailure(target, response.status, response.headers, raw);
        return { ok: false, failure };
      }
      const usage: Partial<TokenUsage> = {};
      const events = steps(target, response, usage);
      let first = '';
      while (first.trim() === '') {
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
        if ('text' in step) first += step.text;
      }
      return { ok: true, value: { first, rest: rest(events), usage: () => reportedTokens(usage) } };
    });
}

async function* rest(events: AsyncGenerator<Step>): AsyncGenerator<string, void, undefined> {
  try {
    for await (const step of events) {
      if ('failure' in step) throw step.failure.error;
      if ('end' in step) return;
      yield step.text;
    }
  } finally {
    // Stopping early (the caller went away) closes the body, which frees or drops the connection.
    await events.return(undefined);
  }
}
