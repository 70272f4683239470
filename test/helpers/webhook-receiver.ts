/**
 * A webhook receiver on loopback: records every request it gets (headers and the raw body)
 * and answers as the test says — a status, or holding the request open, per request.
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

/** What to do with the nth request: answer this status, or hold it open (answered at close). */
export type Answer = number | 'hold';

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  received: ReceivedDelivery[];
  /** Requests held open, answered with 200 when released. */
  held: ServerResponse[];
  /** Sets how the next requests are answered, in order; after the list, 200. */
  answerWith(...answers: Answer[]): void;
  ofType(type: string): ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const held: ServerResponse[] = [];
  let answers: Answer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body, event: JSON.parse(body) as ReceivedDelivery['event'] });
      const answer = answers.shift() ?? 200;
      if (answer === 'hold') held.push(response);
      else response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
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
