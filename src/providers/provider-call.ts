/**
 * One provider call under a deadline: its bounds (the deadline and the caller's abort,
 * as one signal) and the plain retry loop over classified attempts. The deadline is
 * enforced here, not by the provider, so a silent socket, a body that stalls after the
 * headers or a stream that stops mid-way still ends on time.
 */
import { type Clock, systemClock } from '../clock.js';
import { ClientAbortedError, providerError } from '../errors.js';
import type { Attempt } from './attempt.js';

export interface CallBounds {
  providerId: string;
  /** The caller's signal: aborting it (client disconnect) ends the call with ClientAbortedError. */
  signal: AbortSignal | undefined;
  /** Epoch ms after which the call is abandoned with provider_timeout. */
  deadline: number;
  /** The configured timeout, named in the 504 message. */
  timeoutMs: number | undefined;
}

/** A call in progress: aborted at its deadline or by the caller, until `close()`. */
export interface CallScope {
  readonly signal: AbortSignal;
  readonly deadline: number;
  /** Why the call stopped, as the error to throw: 504 provider_timeout or ClientAbortedError. */
  stopped(): Error;
  /** Aborts the provider request, as the caller's signal would (a stream its reader left early). */
  abort(): void;
  /** Stops the deadline timer and forgets the caller's signal; call once the call is over. */
  close(): void;
}

export function openCall(bounds: CallBounds, clock: Clock = systemClock): CallScope {
  const started = clock.now();
  const controller = new AbortController();
  let abortedBy: 'deadline' | 'client' | undefined;
  const abort = (by: 'deadline' | 'client') => {
    abortedBy ??= by;
    controller.abort();
  };
  const onClientAbort = () => abort('client');
  const cancelTimer = clock.after(bounds.deadline - started, () => abort('deadline'));
  bounds.signal?.addEventListener('abort', onClientAbort, { once: true });
  if (bounds.signal?.aborted) abort('client');
  if (started >= bounds.deadline) abort('deadline');
  return {
    signal: controller.signal,
    deadline: bounds.deadline,
    stopped: () =>
      abortedBy === 'client'
        ? new ClientAbortedError(`the client went away; the call to provider "${bounds.providerId}" was abandoned`)
        : providerError(
            'provider_timeout',
            bounds.providerId,
            `did not answer within ${bounds.timeoutMs ?? Math.max(0, bounds.deadline - started)} ms`,
          ),
    abort: () => abort('client'),
    close() {
      cancelTimer();
      bounds.signal?.removeEventListener('abort', onClientAbort);
    },
  };
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** Exponential backoff with jitter, so callers rejected together do not return together. */
const backoffMs = (retry: number) =>
  Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retry - 1)) * (0.5 + Math.random() / 2);

/** Resolves after `ms`, or at once when `signal` aborts (the loop then reads why). */
function pause(ms: number, signal: AbortSignal, clock: Clock): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.after(ms, done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * What a call that failed came to, carried by the error it ended with: the HTTP attempts it
 * made (each a provider call that billed nothing) and whether its last failure may pass
 * another time (a rate limit, a 5xx, a broken connection), which decides a fallback.
 */
export interface FailedCall {
  failedAttempts: number;
  mayPass: boolean;
}

const failedCalls = new WeakMap<object, FailedCall>();

/** The attempts behind an error a provider call threw; none for any other error. */
export function failedCallOf(error: unknown): FailedCall {
  return (typeof error === 'object' && error !== null && failedCalls.get(error)) || { failedAttempts: 0, mayPass: false };
}

function ending(error: Error, call: FailedCall): Error {
  failedCalls.set(error, call);
  return error;
}

/**
 * Attempts until one succeeds, a failure cannot pass, the retries run out or the scope stops.
 * Returns the value with the attempts that failed before it; throws the error with them.
 */
export async function callWithRetries<T>(
  scope: CallScope,
  attempt: Attempt<T>,
  maxRetries: number,
  clock: Clock = systemClock,
): Promise<{ value: T; attempts: number; failedAttempts: number }> {
  for (let attempts = 1; ; attempts++) {
    const failedAttempts = attempts - 1;
    if (scope.signal.aborted) throw ending(scope.stopped(), { failedAttempts, mayPass: false });
    let outcome;
    try {
      outcome = await attempt(scope.signal);
    } catch (error) {
      throw ending(scope.signal.aborted ? scope.stopped() : (error as Error), { failedAttempts: attempts, mayPass: false });
    }
    if (outcome.ok) return { value: outcome.value, attempts, failedAttempts };
    const { failure } = outcome;
    if (!failure.retryable || attempts > maxRetries) throw ending(failure.error, { failedAttempts: attempts, mayPass: failure.retryable });
    const wait = failure.retryAfterMs ?? backoffMs(attempts);
    // A wait that ends past the deadline cannot succeed: answer with what we know now.
    if (clock.now() + wait >= scope.deadline) throw ending(failure.error, { failedAttempts: attempts, mayPass: true });
    await pause(wait, scope.signal, clock);
  }
}
