/**
 * A webhook receiver on loopback: records every request it gets (headers and the raw body)
 * and answers as the test says — a status, holding the request open, or a status with a body of
 * megabytes, per request.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The event as parsed from the body. */
  event: { type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * What to do with the nth request: answer this status, hold it open (answered at close), or
 * answer a status with `bytes` of body, written as fast as the sender reads it.
 */
export type Answer = number | 'hold' | { status: number; bytes: number };

/** How a body of megabytes ended: all of it written, or the sender closed the connection first. */
export interface LargeAnswer {
  written: number;
  finished: boolean;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  received: ReceivedDelivery[];
  /** Requests held open, answered with 200 when released. */
  held: ServerResponse[];
  /** Each large answer, once its connection is done with. */
  large: LargeAnswer[];
  /** Sets how the next requests are answered, in order; after the list, 200. */
  answerWith(...answers: Answer[]): void;
  ofType(type: string): ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const held: ServerResponse[] = [];
  const large: LargeAnswer[] = [];
  let answers: Answer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body, event: JSON.parse(body) as ReceivedDelivery['event'] });
      const answer = answers.shift() ?? 200;
      if (answer === 'hold') held.push(response);
      else if (typeof answer === 'number') response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      else writeLarge(response, answer, large);
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actualPort = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    received,
    held,
    large,
    answerWith: (...next) => {
      answers = next;
    },
    ofType: (type) => received.filter((delivery) => delivery.event.type === type),
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** `bytes` of body in 64 KiB writes, each after the last drained: only as much as the sender takes. */
function writeLarge(response: ServerResponse, { status, bytes }: { status: number; bytes: number }, large: LargeAnswer[]): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  response.writeHead(status, { 'content-type': 'text/plain', 'content-length': String(bytes) });
  const more = () => {
    while (written < bytes && !response.destroyed) {
      const piece = chunk.subarray(0, Math.min(chunk.length, bytes - written));
      written += piece.length;
      if (written >= bytes) return void response.end(piece);
      if (!response.write(piece)) return void response.once('drain', more);
    }
  };
  response.once('close', () => large.push({ written, finished: response.writableFinished }));
  more();
}
