import { type Clock, systemClock } from '../../src/clock.js';

/**
 * The wall clock, stepped forward when a test says so: what the server is given
 * (keys made now, expiring in a second) stays in step with what it judges them by,
 * and a test moves past a 2 s cache or an expiry instead of waiting for it.
 */
export class SteppedClock implements Clock {
  private ahead = 0;

  now(): number {
    return Date.now() + this.ahead;
  }

  /** Timers keep the wall clock's pace: nothing the clock is given to tests waits on one. */
  after(ms: number, fn: () => void): () => void {
    return systemClock.after(ms, fn);
  }

  step(ms: number): void {
    this.ahead += ms;
  }

  /** Back in step with the wall clock, so the next test's keys expire when it says. */
  reset(): void {
    this.ahead = 0;
  }
}
