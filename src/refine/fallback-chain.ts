/**
 * The caller's provider, then their fallbacks, tried in order under one
 * deadline. A fallback is tried only when the previous provider failed in a
 * way that may pass (429, 5xx, overload, a broken connection, a timeout);
 * a rejected key or request is the caller's to fix and ends the refine.
 *
 * Each provider gets an equal share of the time left (the last gets all of
 * it), so a silent one leaves time for the next; a fast failure hands its
 * unused share on. While a fallback remains, a provider is not retried: the
 * fallback is the retry.
 */
import { type Clock, systemClock } from '../clock.js';
import { ClientAbortedError, DomainError } from '../errors.js';
import type { Conversation, ProviderBudget, ProviderCall } from '../providers/index.js';
import { failedCallOf } from '../providers/provider-call.js';
import type { SecretScrubber } from '../providers/secret-scrubber.js';
import type { ProviderUsage } from '../usage/usage-recorder.js';
import { UsageTally } from '../usage/usage-tally.js';

export interface ProviderLink {
  provider: string;
  apiKey: string;
  /** Resolved: the request's model or the provider's default. */
  model: string;
}

export interface ChainCall {
  conversation: Conversation;
  signal: AbortSignal;
  /** Every key of the refine (every link's, the judge's): each provider's error text is scrubbed of all of them. */
  scrubber: SecretScrubber;
  /** Epoch ms shared by every attempt (PROVIDER_TIMEOUT_MS from the start). */
  deadline: number;
  timeoutMs: number;
}

/** One error naming every attempt, in order (each already scrubbed of every key of the refine); the status is the last one's. */
function everyAttemptFailed(errors: DomainError[]): DomainError {
  const last = errors[errors.length - 1] as DomainError;
  return new DomainError(last.code, errors.map((error) => error.message).join('; then '), { source: 'provider', headers: last.headers, keyRefused: last.keyRefused });
}

/** Starts one provider (`generate` or `stream` of the registry): its answer, with the attempts that failed before it. */
export type StartProvider<T extends { failedAttempts: number }> = (link: ProviderLink, call: ProviderCall, budget: ProviderBudget) => Promise<T>;

export async function firstAnswer<T extends { failedAttempts: number }>(
  start: StartProvider<T>,
  links: ProviderLink[],
  call: ChainCall,
  contributions: ProviderUsage[],
  clock: Clock = systemClock,
): Promise<{ value: T; link: ProviderLink; usage: ProviderUsage }> {
  const failures: DomainError[] = [];
  for (let index = 0; index < links.length; index++) {
    const link = links[index] as ProviderLink;
    const last = index === links.length - 1;
    const usage: ProviderUsage = { provider: link.provider, model: link.model, outcome: 'failed', tally: new UsageTally(), startedAt: performance.now() };
    contributions.push(usage);
    const now = clock.now();
    const budget = last
      ? { deadline: call.deadline, timeoutMs: links.length === 1 ? call.timeoutMs : undefined, maxRetries: undefined }
      : { deadline: now + Math.floor((call.deadline - now) / (links.length - index)), timeoutMs: undefined, maxRetries: 0 };
    try {
      const value = await start(link, { apiKey: link.apiKey, scrubber: call.scrubber, model: link.model, conversation: call.conversation, signal: call.signal }, budget);
      usage.tally.addFailedCalls(value.failedAttempts);
      usage.outcome = 'answered';
      return { value, link, usage };
    } catch (error) {
      const failed = failedCallOf(error);
      usage.tally.addFailedCalls(failed.failedAttempts);
      usage.durationMs = performance.now() - (usage.startedAt ?? 0);
      if (error instanceof ClientAbortedError) usage.outcome = 'aborted';
      if (!(error instanceof DomainError) || error.source !== 'provider') throw error;
      usage.failure = error.code;
      failures.push(error);
      // Out of time counts as a failure that may pass: the next provider has its own share.
      const mayPass = error.code === 'provider_timeout' || failed.mayPass;
      if (last || !mayPass) throw failures.length === 1 ? error : everyAttemptFailed(failures);
    }
  }
  throw new Error('a refine has at least one provider');
}
