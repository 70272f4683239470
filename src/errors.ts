/**
 * Domain errors and the single table that turns them into HTTP.
 *
 * The domain throws these with a `code`; it never knows about status codes.
 * `errorStatus` is the one place a code becomes a status (and
 * `codeForClientStatus` the one place a framework's status becomes a code), and
 * the error handler (src/http/error-handler.ts) is the one place a response is
 * written.
 */

export const errorStatus = {
  invalid_request: 400,
  provider_rejected_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  idempotency_mismatch: 422,
  rate_limited: 429,
  provider_rate_limited: 429,
  headers_too_large: 431,
  // nginx's "client closed request": the client left before its answer was ready.
  client_closed_request: 499,
  internal: 500,
  provider_failed: 502,
  unavailable: 503,
  provider_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

const codeByStatus = new Map<number, ErrorCode>();
for (const [code, status] of Object.entries(errorStatus) as [ErrorCode, number][]) {
  if (!codeByStatus.has(status)) codeByStatus.set(status, code);
}

/**
 * The code for a 4xx that the framework or a plugin raised (a static file it
 * refuses, a Range it cannot satisfy): a client's mistake stays a client's
 * mistake, never a 500. A 403 becomes a 404: nothing in this service is visible
 * to one caller and forbidden to another (another account's persona is a 404
 * too), and a 403 from the file server would tell a scanner that the path it
 * tried exists. A 4xx without a code of its own is a 400. Undefined for any
 * other status: that is not the client's doing.
 */
export function codeForClientStatus(status: number | undefined): ErrorCode | undefined {
  if (status === undefined || status < 400 || status > 499) return undefined;
  if (status === 403) return 'not_found';
  return codeByStatus.get(status) ?? 'invalid_request';
}

/** Who caused a failure: callers must be able to tell a provider's failure from ours. */
export type ErrorSource = 'service' | 'provider';

export interface DomainErrorOptions {
  /** Extra response headers this error implies (Retry-After, Allow, WWW-Authenticate…). */
  headers?: Record<string, string>;
  source?: ErrorSource;
  cause?: unknown;
  /** The provider refused the caller's key (not the request): see DomainError.keyRefused. */
  keyRefused?: boolean;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  readonly source: ErrorSource;
  /**
   * A provider refused the caller's key. `/v1/refine` answers it as the bad request member it
   * is (400); the OpenAI-compatible routes as the failed credential of the call (401).
   */
  readonly keyRefused: boolean;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.code = code;
    this.headers = options.headers ?? {};
    this.source = options.source ?? 'service';
    this.keyRefused = options.keyRefused ?? false;
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

/** The key is valid but lacks a scope (docs/keys-and-scopes.md, "Scopes"). */
export const lacksScope = (scope: string) => new DomainError('forbidden', `this key lacks the scope "${scope}"`);

export const preconditionFailed = (message: string) => new DomainError('precondition_failed', message);

export const unavailable = (message: string, retryAfterSeconds: number, cause?: unknown) =>
  new DomainError('unavailable', message, { headers: { 'retry-after': String(retryAfterSeconds) }, cause });

export const rateLimited = (message: string, retryAfterSeconds: number, headers: Record<string, string> = {}) =>
  new DomainError('rate_limited', message, {
    headers: { ...headers, 'retry-after': String(retryAfterSeconds) },
  });

/** A provider failure. Its message must start with `provider "<id>"` (docs/http-contract.md, "Errors"). */
export const providerError = (
  code: Extract<ErrorCode, `provider_${string}`>,
  providerId: string,
  detail: string,
  headers: Record<string, string> = {},
  keyRefused = false,
) => new DomainError(code, `provider "${providerId}" ${detail}`, { source: 'provider', headers, keyRefused });
