/**
 * One attempt at a provider, classified. Everything that decides what an attempt's
 * outcome means lives here: the answer's text and usage, or the DomainError the
 * caller sees and whether another attempt could help. A streamed attempt
 * (streamed-attempt.ts) is classified by the same functions until its first token.
 */
import { type DomainError, providerError } from '../errors.js';
import { errorBodyMessage, parseErrorBody, retryDelayFromBody } from './provider-error-body.js';
import type { ProviderDefinition } from './provider-definition.js';
import { cleanProviderText, type SecretScrubber } from './secret-scrubber.js';
import type { HttpResponse, Transport } from './wire/transport.js';
import type { Conversation, FinishReason, ToolCall } from './wire/conversation.js';
import type { StructuredOutput, TokenUsage, WireFormat } from './wire/wire-format.js';

export interface ProviderFailure {
  error: DomainError;
  /** Rate limits, 5xx, overload and broken connections may pass; a rejected request will not. */
  retryable: boolean;
  /** The wait the provider asked for, when it said. */
  retryAfterMs: number | undefined;
}

export type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; failure: ProviderFailure };

/**
 * One try at the provider. Resolves with its classified outcome; rejects only when the
 * signal aborted (the caller knows why) or on a bug of ours (it surfaces as a 500).
 */
export type Attempt<T> = (signal: AbortSignal) => Promise<AttemptOutcome<T>>;

/** Who is being called, with which key: what classifying a failure needs. */
export interface AttemptTarget {
  providerId: string;
  apiKey: string;
  /** Every key of the request (ProviderCall.scrubber). */
  scrubber: SecretScrubber;
  rejectsKey: ProviderDefinition['rejectsKey'];
  wire: WireFormat;
  transport: Transport;
  baseUrl: string;
}

export interface Prompt {
  model: string;
  conversation: Conversation;
  /** Asks for JSON of this schema (whole answers only); the text is then that JSON, unchecked. */
  output?: StructuredOutput;
}

export interface ProviderText {
  /** '' when the answer is only tool calls. */
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** The tokens the provider reported, when it did. */
  usage: TokenUsage | undefined;
}

/** A provider answer larger than this is not a rewrite of at most 100,000 characters. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed before the answer was complete',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** The network failure behind an error, if any. Addresses are left out: they are operator config. */
function networkReason(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 6; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
    if (typeof code === 'string' && /CERT|TLS|SSL/.test(code)) return 'TLS handshake failed';
    // undici's parser refusing the answer (HPE_*), or its assertions on one it cannot handle
    // (a 101 without Upgrade): the provider spoke something other than HTTP we can use.
    if (typeof code === 'string' && (code.startsWith('HPE_') || code === 'ERR_ASSERTION')) return 'invalid HTTP response';
    // undici reports a body cut short as TypeError("terminated").
    if (cause.message === 'terminated') return NETWORK_REASONS.UND_ERR_SOCKET;
  }
  return undefined;
}

const MAX_RETRY_AFTER_SECONDS = 86_400;

/** Retry-After (seconds or HTTP date) or OpenAI's retry-after-ms, else Google's RetryInfo. */
function retryAfterMs(headers: Record<string, string> | undefined, body: unknown): number | undefined {
  const ms = Number.parseFloat(headers?.['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.['retry-after'];
  if (raw !== undefined) {
    const seconds = Number(raw);
    if (raw.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(raw);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  return retryDelayFromBody(body);
}

const fail = (target: AttemptTarget, code: Parameters<typeof providerError>[0], detail: string, retryable = false, keyRefused = false): ProviderFailure => ({
  error: providerError(code, target.providerId, detail, {}, keyRefused),
  retryable,
  retryAfterMs: undefined,
});

const oversized = new WeakSet<object>();

/**
 * The error of a call whose answer was a success larger than MAX_ANSWER_BYTES: the model's answer
 * (not the provider) was unusable, which a caller that reads answers leniently (a persona draft)
 * reports as such rather than as a failed provider.
 */
export const isOversizedAnswer = (error: unknown): boolean => typeof error === 'object' && error !== null && oversized.has(error);

/** A 2xx answer we cannot use. */
export function unusableAnswer(target: AttemptTarget, status: number, reason: 'not_json' | 'unexpected_shape' | 'too_large' | 'no_text'): ProviderFailure {
  const detail = {
    not_json: `answered with a body that is not JSON (HTTP ${status})`,
    unexpected_shape: `answered with JSON of an unexpected shape (HTTP ${status})`,
    too_large: 'answered with more than 8 MiB',
    no_text: 'answered without any text',
  }[reason];
  const failure = fail(target, 'provider_failed', detail);
  if (reason === 'too_large' && status >= 200 && status < 300) oversized.add(failure.error);
  return failure;
}

/**
 * What an error answer means. Also used for an error a provider reports inside a
 * stream, with the status it would have answered (streamed-attempt.ts).
 */
export function errorAnswerFailure(target: AttemptTarget, status: number, headers: Record<string, string> | undefined, rawBody: string | undefined): ProviderFailure {
  const body = parseErrorBody(rawBody);
  const said = cleanProviderText(errorBodyMessage(body) ?? 'no error message', target.scrubber);

  if (status === 401 || status === 403 || target.rejectsKey?.(status, body)) {
    return fail(target, 'provider_rejected_request', `rejected providerApiKey (HTTP ${status})`, false, true);
  }
  if (status === 429) {
    const waitMs = retryAfterMs(headers, body);
    // Our 429 always carries Retry-After: whole seconds, 1 when the provider named none, and
    // never more than a day (a provider's `1e300` must not reach our header as `1e+300`).
    const seconds = waitMs === undefined ? 1 : Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(waitMs / 1000)));
    const detail = `is rate limiting requests (HTTP 429): ${said}`;
    return {
      error: providerError('provider_rate_limited', target.providerId, detail, { 'retry-after': String(seconds) }),
      retryable: true,
      retryAfterMs: waitMs,
    };
  }
  if (status >= 400 && status < 500) {
    return fail(target, 'provider_rejected_request', `rejected the request (HTTP ${status}): ${said}`);
  }
  if (status === 529) return fail(target, 'provider_failed', `is overloaded (HTTP 529): ${said}`, true);
  if (status >= 500) return fail(target, 'provider_failed', `failed (HTTP ${status}): ${said}`, true);
  return fail(target, 'provider_failed', `answered with an unusable response (HTTP ${status})`);
}

/** A thrown error that came from the connection to the provider, or undefined (a bug of ours). */
export function connectionFailure(target: AttemptTarget, error: unknown): ProviderFailure | undefined {
  const reason = networkReason(error);
  return reason === undefined ? undefined : fail(target, 'provider_failed', `could not be reached (${reason})`, true);
}

/** A body that ended before the answer did: a cut connection, whether or not the socket said so. */
export const cutShortFailure = (target: AttemptTarget): ProviderFailure =>
  fail(target, 'provider_failed', `could not be reached (${NETWORK_REASONS.UND_ERR_SOCKET})`, true);

/** The whole body as text, or undefined past the cap (the rest is not read). */
export async function readCapped(body: AsyncIterable<Uint8Array>): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    // Leaving the loop early closes the body, so the connection is not kept for the rest.
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const isSuccess = (response: HttpResponse) => response.status >= 200 && response.status < 300;

/** Runs `body`, turning a connection failure into its outcome; aborts and bugs propagate. */
export async function classified<T>(target: AttemptTarget, signal: AbortSignal, body: () => Promise<AttemptOutcome<T>>): Promise<AttemptOutcome<T>> {
  try {
    return await body();
  } catch (error) {
    const failure = signal.aborted ? undefined : connectionFailure(target, error);
    if (failure === undefined) throw error;
    return { ok: false, failure };
  }
}

/** One whole-answer attempt: the request, the answer read whole, its text, tool calls and usage. */
export function answerAttempt(target: AttemptTarget, prompt: Prompt): Attempt<ProviderText> {
  const request = target.wire.request(target.apiKey, prompt.model, prompt.conversation, false, prompt.output);
  const contentOf = (json: unknown) => {
    if (!prompt.output) return target.wire.answer(json);
    const text = target.wire.structuredText(json);
    return text === undefined ? undefined : { text, toolCalls: [], finishReason: 'stop' as const };
  };
  return (signal) =>
    classified(target, signal, async () => {
      const response = await target.transport(target.baseUrl, request, signal);
      const raw = await readCapped(response.body);
      if (raw === undefined) return { ok: false, failure: unusableAnswer(target, response.status, 'too_large') };
      if (!isSuccess(response)) return { ok: false, failure: errorAnswerFailure(target, response.status, response.headers, raw) };
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        return { ok: false, failure: unusableAnswer(target, response.status, 'not_json') };
      }
      const content = contentOf(json);
      if (content === undefined) return { ok: false, failure: unusableAnswer(target, response.status, 'unexpected_shape') };
      if (content.text.trim() === '' && content.toolCalls.length === 0) return { ok: false, failure: unusableAnswer(target, response.status, 'no_text') };
      return { ok: true, value: { ...content, usage: target.wire.usage(json) } };
    });
}
