/**
 * The one error type every SDK call throws. Callers branch on `kind`, `status` and `source`
 * instead of on a zoo of classes; 412 and 403 get subclasses because each asks for a distinct
 * reaction (412: re-read, merge, retry with the new ETag; 403: use a key with the named scope).
 */

/**
 * - `http`: the service answered with a non-2xx status (or a 2xx that was not the expected JSON).
 * - `network`: no answer: connection refused or reset, DNS failure…
 * - `timeout`: the call's overall `timeoutMs` ran out, retries included.
 * - `aborted`: the caller's `AbortSignal` fired.
 */
export type ErrorKind = 'http' | 'network' | 'timeout' | 'aborted';

/** Who failed: persona-refine itself, or the LLM provider it called for you (`X-Error-Source: provider`). */
export type ErrorSource = 'service' | 'provider';

export interface PersonaRefineErrorInit {
  kind: ErrorKind;
  message: string;
  /** HTTP status; 0 when there was no answer. */
  status?: number;
  source?: ErrorSource;
  requestId?: string;
  retryAfter?: number;
  cause?: unknown;
}

export class PersonaRefineError extends Error {
  readonly kind: ErrorKind;
  /** The HTTP status, or 0 for `network`, `timeout` and `aborted`. */
  readonly status: number;
  readonly source: ErrorSource;
  /** The service's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;

  constructor(init: PersonaRefineErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PersonaRefineError';
    this.kind = init.kind;
    this.status = init.status ?? 0;
    this.source = init.source ?? 'service';
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

/**
 * 412: the `ifMatch` ETag you sent is no longer the persona's current one — someone changed it
 * since you read it. Get it again, reapply your change, and update with the new ETag.
 */
export class PreconditionFailedError extends PersonaRefineError {
  constructor(init: Omit<PersonaRefineErrorInit, 'kind' | 'status'>) {
    super({ ...init, kind: 'http', status: 412 });
    this.name = 'PreconditionFailedError';
  }
}

/**
 * 403: the API key is valid but lacks the scope this call needs (`scope`, e.g. `personas:write`).
 * Retrying will not help; use a key with that scope.
 */
export class PermissionError extends PersonaRefineError {
  /** The scope the key lacks, from the service's message; undefined if it did not name one. */
  readonly scope: string | undefined;

  constructor(init: Omit<PersonaRefineErrorInit, 'kind' | 'status'>) {
    super({ ...init, kind: 'http', status: 403 });
    this.name = 'PermissionError';
    this.scope = /lacks the scope "([^"]+)"/.exec(init.message)?.[1];
  }
}

/**
 * An answer (a JSON body, or one event of a stream) larger than the SDK reads: it stops reading
 * rather than let a broken or hostile server fill the memory. See README, "Limits".
 */
export class AnswerTooLargeError extends PersonaRefineError {
  /** The limit that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(init: Omit<PersonaRefineErrorInit, 'kind' | 'message'> & { what: string; limitBytes: number }) {
    super({ ...init, kind: 'http', message: `${init.what} is larger than the ${init.limitBytes} bytes the SDK reads` });
    this.name = 'AnswerTooLargeError';
    this.limitBytes = init.limitBytes;
  }
}
