/**
 * One provider call under a deadline: attempts, retries of what may pass, and aborts.
 * The deadline is enforced here, not by the provider or the SDK, so a silent socket or
 * a body that stalls after the headers still ends on time.
 */
import { ClientAbortedError, providerError } from '../errors.js';
import { type FailureContext, type ProviderFailure, describeProviderFailure } from './provider-failure.js';

/** One try at the provider: resolves with the answer's text, or throws what went wrong. */
export type Attempt = (signal: AbortSignal) => Promise<string>;

export interface AttemptPlan extends FailureContext {
  attempt: Attempt;
  signal: AbortSignal | undefined;
  /** Epoch ms after which the call is abandoned with provider_timeout. */
  deadline: number;
  timeoutMs: number | undefined;
  maxRetries: number;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** Exponential backoff with jitter, so callers rejected together do not return together. */
const backoffMs = (retry: number) =>
  Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (retry - 1)) * (0.5 + Math.random() / 2);

/** Resolves after `ms`, or at once when `signal` aborts (the loop then reads why). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function callWithRetries(plan: AttemptPlan): Promise<{ text: string; attempts: number }> {
  const started = Date.now();
  const controller = new AbortController();
  let abortedBy: 'deadline' | 'client' | undefined;
  const abort = (by: 'deadline' | 'client') => {
    abortedBy ??= by;
    controller.abort();
  };
  const onClientAbort = () => abort('client');
  const timer = setTimeout(() => abort('deadline'), plan.deadline - started);
  plan.signal?.addEventListener('abort', onClientAbort, { once: true });
  if (plan.signal?.aborted) abort('client');
  if (started >= plan.deadline) abort('deadline');

  const stopped = (): Error =>
    abortedBy === 'client'
      ? new ClientAbortedError(`the client went away; the call to provider "${plan.providerId}" was abandoned`)
      : providerError(
          'provider_timeout',
          plan.providerId,
          `did not answer within ${plan.timeoutMs ?? Math.max(0, plan.deadline - started)} ms`,
        );

  try {
    for (let attempt = 1; ; attempt++) {
      if (controller.signal.aborted) throw stopped();
      let failure: ProviderFailure;
      try {
        const text = await plan.attempt(controller.signal);
        if (text.trim() !== '') return { text, attempts: attempt };
        failure = {
          error: providerError('provider_failed', plan.providerId, 'answered without any text'),
          retryable: false,
          retryAfterMs: undefined,
        };
      } catch (error) {
        if (controller.signal.aborted) throw stopped();
        const described = describeProviderFailure(error, plan);
        if (described === undefined) throw error;
        failure = described;
      }
      if (!failure.retryable || attempt > plan.maxRetries) throw failure.error;
      const wait = failure.retryAfterMs ?? backoffMs(attempt);
      // A wait that ends past the deadline cannot succeed: answer with what we know now.
      if (Date.now() + wait >= plan.deadline) throw failure.error;
      await pause(wait, controller.signal);
    }
  } finally {
    clearTimeout(timer);
    plan.signal?.removeEventListener('abort', onClientAbort);
  }
}
