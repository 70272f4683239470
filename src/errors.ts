/**
 * Domain errors and the single table that turns them into HTTP.
 *
 * The domain throws these with a `code`; it never knows about status codes.
 * `httpStatusFor` is the one place a code becomes a status, and the error
 * handler (src/http/error-handler.ts) is the one place a response is written.
 */

export const errorStatus = {
  invalid_request: 400,
  provider_rejected_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_mismatch: 422,
  rate_limited: 429,
  provider_rate_limited: 429,
  // nginx's "client closed request": the client left before its answer was ready.
  client_closed_request: 499,
  internal: 500,
  provider_failed: 502,
  unavailable: 503,
  provider_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** Who caused a failure: callers must be able to tell a provider's failure from ours. */
export type ErrorSource = 'service' | 'provider';

export interface DomainErrorOptions {
  /** Extra response headers this error implies (Retry-After, Allow, WWW-Authenticate…). */
  headers?: Record<string, string>;
  source?: ErrorSource;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  readonly source: ErrorSource;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.code = code;
    this.headers = options.headers ?? {};
    this.source = options.source ?? 'service';
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/**
 * The client closed its connection before its answer was ready. Nobody is left to
 * answer; it is logged and counted as 499, is not a provider failure, and settles
 * nothing (an Idempotency-Key is freed for the retry).
 */
export class ClientAbortedError extends DomainError {
  constructor(message: string) {
    super('client_closed_request', message);
    this.name = 'ClientAbortedError';
  }
}

export const invalidRequest = (message: string) => new DomainError('invalid_request', message);

export const notFound = (message: string) => new DomainError('not_found', message);

export const unauthorized = (message: string) =>
  new DomainError('unauthorized', message, {
    headers: { 'www-authenticate': 'Bearer realm="persona-refine"' },
  });

export const preconditionFailed = (message: string) => new DomainError('precondition_failed', message);

export const unavailable = (message: string, retryAfterSeconds: number, cause?: unknown) =>
  new DomainError('unavailable', message, { headers: { 'retry-after': String(retryAfterSeconds) }, cause });

export const rateLimited = (message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) =>
  new DomainError('rate_limited', message, {
    headers: { ...headers, 'retry-after': String(retryAfterSeconds) },
  });

/** A provider failure. Its message must start with `provider "<id>"` (DESIGN.md §2). */
export const providerError = (
  code: Extract<ErrorCode, `provider_${string}`>,
  providerId: string,
  detail: string,
  headers: Record<string, string> = {},
) => new DomainError(code, `provider "${providerId}" ${detail}`, { source: 'provider', headers });
