/**
 * Sends one logical call: auth and JSON, the retry loop, the overall timeout and abort, and the
 * mapping of every failure to a PersonaRefineError. Resources above it only name paths and bodies.
 */
import { type AnswerShape, errorFromResponse, parseAnswer, readCapped, redirectError } from './answer.js';
import { CallScope } from './call-scope.js';
import { PersonaRefineError } from './errors.js';
import { newIdempotencyKey } from './idempotency-key.js';
import { isRetryable, retryDelayMs } from './retry-policy.js';

export interface CallOptions {
  /** Cancels the call, including any wait between retries. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

export interface PostOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` on every attempt. Defaults to a fresh UUID per call; pass your own
   * to make a call safe to repeat across process restarts too.
   */
  idempotencyKey?: string;
}

/** Reported before each retry (e.g. for logs or a "retried" counter). */
export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  error: PersonaRefineError;
}

export interface TransportConfig {
  apiKey: string;
  /** Root URL ending in /v1, without a trailing slash. */
  apiUrl: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
  onRetry: ((event: RetryEvent) => void) | undefined;
  /** The most a JSON answer may weigh, in bytes. */
  maxAnswerBytes: number;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under /v1, e.g. `/personas`. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** What a 2xx body must be; default a JSON object. */
  answer?: AnswerShape;
}

export interface ApiResponse<T> {
  headers: Headers;
  body: T;
}

export class Transport {
  constructor(private readonly config: TransportConfig) {}

  /** The most an answer may weigh, in bytes (the client's `maxAnswerBytes`). */
  get maxAnswerBytes(): number {
    return this.config.maxAnswerBytes;
  }

  async call<T>(request: ApiRequest, options: PostOptions = {}): Promise<ApiResponse<T>> {
    const scope = this.scopeFor(options);
    try {
      return await this.withRetries(request, options, scope, (headers) => this.attempt<T>(request, headers, scope.signal));
    } finally {
      scope.dispose();
    }
  }

  /**
   * Opens a call whose answer is read after this returns (a text/event-stream): `open` runs once
   * per attempt and is retried like `call` until it resolves. The caller owns the returned scope:
   * it bounds the reading too, and must be disposed.
   */
  async open<T>(
    request: ApiRequest,
    options: PostOptions,
    open: (response: Response) => Promise<T>,
  ): Promise<{ opened: T; scope: CallScope }> {
    const scope = this.scopeFor(options);
    try {
      const opened = await this.withRetries(request, options, scope, async (headers) => {
        const response = await this.fetchFor(request, headers, scope.signal);
        if (!response.ok) throw await this.failure(response);
        return open(response);
      });
      return { opened, scope };
    } catch (error) {
      scope.dispose();
      throw error;
    }
  }

  private scopeFor(options: CallOptions): CallScope {
    return new CallScope(options.timeoutMs ?? this.config.timeoutMs, options.signal);
  }

  private async withRetries<T>(
    request: ApiRequest,
    options: PostOptions,
    scope: CallScope,
    attempt: (headers: Record<string, string>) => Promise<T>,
  ): Promise<T> {
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    // GET and PUT are idempotent by themselves. POST, PATCH and DELETE get one key per logical
    // call, on the first attempt too: the server then applies them at most once however many
    // attempts reach it, and a retry after a lost answer gets the first answer (not a 412 or 404).
    const idempotent = request.method === 'GET' || request.method === 'PUT';
    const idempotencyKey = idempotent ? undefined : (options.idempotencyKey ?? newIdempotencyKey());
    const headers = this.headersFor(request, idempotencyKey);
    for (let retry = 0; ; retry++) {
      let error: PersonaRefineError;
      try {
        return await attempt(headers);
      } catch (caught) {
        if (scope.signal.aborted) throw scope.abortError();
        error = caught instanceof PersonaRefineError ? caught : networkError(caught);
      }
      if (retry >= maxRetries || !isRetryable(error, idempotencyKey !== undefined)) throw error;
      const delayMs = retryDelayMs(retry, error.retryAfter);
      // Waiting past the deadline only to time out would hide the real error.
      if (delayMs >= scope.remainingMs()) throw error;
      this.config.onRetry?.({ method: request.method, path: request.path, retry: retry + 1, delayMs, error });
      await scope.sleep(delayMs);
    }
  }

  private headersFor(request: ApiRequest, idempotencyKey: string | undefined): Record<string, string> {
    return {
      accept: 'application/json',
      authorization: `Bearer ${this.config.apiKey}`,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      ...request.headers,
    };
  }

  private fetchFor(request: ApiRequest, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    return this.config.fetch(this.config.apiUrl + request.path, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
      // Followed, a redirect would carry the keys to wherever it points; see redirectError.
      redirect: 'manual',
    });
  }

  /** A non-2xx answer as an error; its body (a message) is read within the same cap. */
  private async failure(response: Response): Promise<PersonaRefineError> {
    const redirect = redirectError(response);
    if (redirect === undefined) return errorFromResponse(response, await readCapped(response, this.config.maxAnswerBytes));
    await response.body?.cancel().catch(() => undefined);
    return redirect;
  }

  private async attempt<T>(request: ApiRequest, headers: Record<string, string>, signal: AbortSignal): Promise<ApiResponse<T>> {
    const response = await this.fetchFor(request, headers, signal);
    if (!response.ok) throw await this.failure(response);
    const text = await readCapped(response, this.config.maxAnswerBytes);
    return { headers: response.headers, body: parseAnswer(response, text, request.answer ?? 'object') as T };
  }
}

export function networkError(cause: unknown): PersonaRefineError {
  const detail = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
  return new PersonaRefineError({ kind: 'network', message: `could not reach persona-refine: ${detail}`, cause });
}
