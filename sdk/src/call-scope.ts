/**
 * One logical call's lifetime: the caller's AbortSignal and the overall timeout (retries and
 * waits included) merged into one signal. Written out by hand because AbortSignal.any is not in
 * Node 18 or older browsers.
 */
import { PersonaRefineError } from './errors.js';

export class CallScope {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly onCallerAbort = () => this.controller.abort(this.callerSignal?.reason);
  private timedOut = false;

  constructor(private readonly timeoutMs: number, callerSignal?: AbortSignal) {
    this.signal = this.controller.signal;
    this.deadline = Date.now() + timeoutMs;
    this.callerSignal = callerSignal;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, timeoutMs);
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /** The error to throw once `signal` has fired. */
  abortError(): PersonaRefineError {
    return this.timedOut
      ? new PersonaRefineError({ kind: 'timeout', message: `request timed out after ${this.timeoutMs} ms` })
      : new PersonaRefineError({ kind: 'aborted', message: 'request aborted by the caller', cause: this.callerSignal?.reason });
  }

  /** Waits between attempts; rejects with `abortError()` if the scope ends first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(this.abortError());
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      if (this.signal.aborted) onAbort();
      else this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  /** Disposes and closes whatever is still open under `signal` (a stream nobody reads any more). */
  close(): void {
    this.dispose();
    if (!this.signal.aborted) this.controller.abort();
  }
}
