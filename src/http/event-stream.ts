/**
 * A text/event-stream response body: named events whose `data` is one JSON object,
 * and a comment every 15 s so that proxies and load balancers do not close an idle stream.
 */
import { PassThrough } from 'node:stream';

export const KEEP_ALIVE_MS = 15_000;

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx buffers proxied answers unless told not to, which would hold every event back.
  'x-accel-buffering': 'no',
};

/** One event as it goes on the wire (JSON has no raw line breaks, so one `data:` line holds it). */
export const formatEvent = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

export class EventStream {
  readonly body = new PassThrough();
  private readonly keepAlive: NodeJS.Timeout;

  constructor(keepAliveMs = KEEP_ALIVE_MS) {
    // Headers go out with the first bytes of the body: without this line, a client would
    // wait for them until the first text cleared the rules (or the stream ended).
    this.write(': stream open\n\n');
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), keepAliveMs);
  }

  /**
   * Resolves once the event is written and the body's buffer is below its mark again (or the
   * client is gone): a reader that waits for it never makes the service hold more than one
   * event beyond what the client has read, and a client that reads slowly slows the provider.
   */
  send(name: string, data: unknown): Promise<void> {
    return this.sendText(formatEvent(name, data));
  }

  /** An unnamed event, as OpenAI's streams send every chunk (`data: …`, and `data: [DONE]` last). */
  sendData(data: string): Promise<void> {
    return this.sendText(`data: ${data}\n\n`);
  }

  private async sendText(text: string): Promise<void> {
    if (this.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.body.off('drain', done);
        this.body.off('close', done);
        resolve();
      };
      this.body.on('drain', done);
      this.body.on('close', done);
    });
  }

  end(): void {
    clearInterval(this.keepAlive);
    if (!this.body.destroyed) this.body.end();
  }

  /** False when the body's buffer is over its mark: wait for 'drain' before writing more. */
  private write(text: string): boolean {
    // Gone with the client: what is left to say has nobody to hear it.
    if (this.body.destroyed || this.body.writableEnded) return true;
    return this.body.write(text);
  }
}
