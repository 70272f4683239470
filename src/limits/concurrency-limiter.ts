/**
 * Caps refines in flight per account on this instance, so one caller with a
 * slow provider cannot hold every socket and byte of memory.
 */
export class ConcurrencyLimiter {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly maxPerKey: number) {}

  /** Returns a release function, or undefined when the key is at its cap. */
  tryAcquire(key: string): (() => void) | undefined {
    const current = this.inFlight.get(key) ?? 0;
    if (current >= this.maxPerKey) return undefined;
    this.inFlight.set(key, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(key);
      else this.inFlight.set(key, left);
    };
  }
}
