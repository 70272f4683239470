/**
 * Turns whatever a provider call threw into the DomainError the caller sees,
 * and says whether another attempt could help. DESIGN.md §2 error table.
 */
import { type DomainError, providerError } from '../errors.js';
import { errorBodyMessage, parseErrorBody, retryDelayFromBody } from './provider-error-body.js';
import { ProviderHttpError, UnusableAnswerError } from './attempts.js';
import { AnswerTooLargeError } from './wire/transport.js';
import type { ProviderDefinition } from './provider-definition.js';
import { cleanProviderText } from './secret-scrubber.js';

export interface ProviderFailure {
  error: DomainError;
  /** Rate limits, 5xx, overload and broken connections may pass; a rejected request will not. */
  retryable: boolean;
  /** The wait the provider asked for, when it said. */
  retryAfterMs: number | undefined;
}

export interface FailureContext {
  providerId: string;
  apiKey: string;
  rejectsKey: ProviderDefinition['rejectsKey'];
}

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
    // undici reports a body cut short as TypeError("terminated").
    if (cause.message === 'terminated') return NETWORK_REASONS.UND_ERR_SOCKET;
  }
  return undefined;
}

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

interface ErrorAnswer {
  status: number;
  headers: Record<string, string> | undefined;
  body: string | undefined;
}

const unusable = (providerId: string, status: number, reason: UnusableAnswerError['reason'] | 'unknown'): ProviderFailure => {
  const detail = {
    not_json: `answered with a body that is not JSON (HTTP ${status})`,
    unexpected_shape: `answered with JSON of an unexpected shape (HTTP ${status})`,
    unknown: `answered with an unusable response (HTTP ${status})`,
  }[reason];
  return { error: providerError('provider_failed', providerId, detail), retryable: false, retryAfterMs: undefined };
};

function httpFailure(answer: ErrorAnswer, context: FailureContext): ProviderFailure {
  const { providerId, apiKey } = context;
  const { status } = answer;
  const body = parseErrorBody(answer.body);
  const said = cleanProviderText(errorBodyMessage(body) ?? 'no error message', apiKey);
  const fail = (code: Parameters<typeof providerError>[0], detail: string, retryable = false) => ({
    error: providerError(code, providerId, detail),
    retryable,
    retryAfterMs: undefined,
  });

  if (status === 401 || status === 403 || context.rejectsKey?.(status, body)) {
    return fail('provider_rejected_request', `rejected providerApiKey (HTTP ${status})`);
  }
  if (status === 429) {
    const waitMs = retryAfterMs(answer.headers, body);
    // Our 429 always carries Retry-After (DESIGN.md §2); 1 s when the provider named none.
    const seconds = waitMs === undefined ? 1 : Math.max(1, Math.ceil(waitMs / 1000));
    const detail = `is rate limiting requests (HTTP 429): ${said}`;
    return {
      error: providerError('provider_rate_limited', providerId, detail, { 'retry-after': String(seconds) }),
      retryable: true,
      retryAfterMs: waitMs,
    };
  }
  if (status >= 400 && status < 500) {
    return fail('provider_rejected_request', `rejected the request (HTTP ${status}): ${said}`);
  }
  if (status === 529) return fail('provider_failed', `is overloaded (HTTP 529): ${said}`, true);
  if (status >= 500) return fail('provider_failed', `failed (HTTP ${status}): ${said}`, true);
  return unusable(providerId, status, 'unknown');
}

/**
 * The failure a provider call ended in, or undefined when the error did not come from
 * the provider or the connection to it (a bug of ours: let it surface as a 500).
 */
export function describeProviderFailure(error: unknown, context: FailureContext): ProviderFailure | undefined {
  const reason = networkReason(error);
  if (reason !== undefined) {
    return {
      error: providerError('provider_failed', context.providerId, `could not be reached (${reason})`),
      retryable: true,
      retryAfterMs: undefined,
    };
  }
  if (error instanceof ProviderHttpError) {
    return httpFailure(error, context);
  }
  if (error instanceof UnusableAnswerError) return unusable(context.providerId, error.status, error.reason);
  if (error instanceof AnswerTooLargeError) {
    return { error: providerError('provider_failed', context.providerId, 'answered with more than 8 MiB'), retryable: false, retryAfterMs: undefined };
  }
  return undefined;
}
