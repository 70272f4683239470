/**
 * Batch progress on stderr: a redrawn bar when a person is watching a terminal, plain lines
 * otherwise (CI logs and files should not fill with carriage returns).
 */
import type { TerminalSink } from './io.js';

export interface BatchCounts {
  done: number;
  failed: number;
  retried: number;
}

const CLEAR_LINE = '\r\x1b[2K';

export class Progress {
  readonly live: boolean;
  private counts: BatchCounts = { done: 0, failed: 0, retried: 0 };

  constructor(private readonly sink: TerminalSink, private readonly total: number) {
    this.live = sink.isTTY === true;
  }

  /** A line that stays on screen, above the bar. */
  line(text: string): void {
    if (!this.live) return void this.sink.write(`${text}\n`);
    this.clearLine();
    this.sink.write(`${text}\n${this.bar()}`);
  }

  update(counts: BatchCounts): void {
    this.counts = { ...counts };
    if (!this.live) return;
    this.clearLine();
    this.sink.write(this.bar());
  }

  finish(): void {
    if (this.live) this.clearLine();
  }

  private clearLine(): void {
    if (this.sink.control) this.sink.control(CLEAR_LINE);
    else this.sink.write(CLEAR_LINE);
  }

  private bar(): string {
    const { done, failed, retried } = this.counts;
    const finished = done + failed;
    const width = Math.max(10, Math.min(30, (this.sink.columns ?? 80) - 50));
    const filled = this.total === 0 ? width : Math.round((finished / this.total) * width);
    return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${finished}/${this.total}  done ${done}  failed ${failed}  retried ${retried}`;
  }
}
