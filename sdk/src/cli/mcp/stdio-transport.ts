/**
 * MCP's stdio transport over the CLI's injected streams: one JSON-RPC message per line. Unlike the
 * SDK's own, it ends when stdin ends, which is how a host says it is done with the server.
 */
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CliIo } from '../io.js';

export class CliIoTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Settles once the transport closed: stdin ended, or `close()` was called. */
  readonly closed: Promise<void>;
  private readonly buffer = new ReadBuffer();
  private isClosed = false;
  private markClosed!: () => void;

  constructor(private readonly io: Pick<CliIo, 'stdin' | 'stdout'>) {
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
  }

  async start(): Promise<void> {
    void this.read();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.isClosed) this.io.stdout.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.buffer.clear();
    this.onclose?.();
    this.markClosed();
  }

  private async read(): Promise<void> {
    try {
      for await (const chunk of this.io.stdin) {
        if (this.isClosed) break;
        this.buffer.append(Buffer.from(chunk));
        this.deliver();
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    await this.close();
  }

  /** A line that is not a message is reported and skipped; the next one is still read. */
  private deliver(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null || this.isClosed) return;
      this.onmessage?.(message);
    }
  }
}
