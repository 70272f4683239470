/**
 * Time as a dependency. The refine pipeline's deadlines, its fallbacks' shares of the time
 * and its retries' waits read this clock, so tests can drive time instead of waiting for it
 * (a provider that never answers is a 504 after `advance(60_000)`, not after a minute).
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `fn` once `ms` have passed; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};
