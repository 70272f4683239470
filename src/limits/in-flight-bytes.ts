/**
 * Bytes that requests in flight hold, capped for the instance and for each account: a
 * request over either cap is refused at once, never queued (docs/evaluations.md, "Limits").
 */
export class InFlightBytes {
  private total = 0;
  private readonly byAccount = new Map<string, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerAccount: number,
  ) {}

  /** A function that gives the bytes back (once, however often it is called), or the cap they would exceed. */
  tryAcquire(accountId: string, bytes: number): (() => void) | 'account' | 'instance' {
    const held = this.byAccount.get(accountId) ?? 0;
    if (held + bytes > this.maxPerAccount) return 'account';
    if (this.total + bytes > this.maxTotal) return 'instance';
    this.total += bytes;
    this.byAccount.set(accountId, held + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= bytes;
      const left = (this.byAccount.get(accountId) ?? bytes) - bytes;
      if (left === 0) this.byAccount.delete(accountId);
      else this.byAccount.set(accountId, left);
    };
  }
}
