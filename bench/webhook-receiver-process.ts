/**
 * A webhook receiver that does as little as a receiver can: it answers 204 at once and notes,
 * for each delivery, the persona version in its body and when it arrived, so the bench can
 * tell how long after a PATCH's answer its event reached the receiver. In its own process:
 * its work is charged neither to the service nor to the load generator.
 * Usage: node webhook-receiver-process.js; reports { url } over IPC. Sent { collect: n, timeoutMs },
 * it answers, once n deliveries have arrived (or at the timeout), with what arrived, and forgets it.
 */
import { createServer } from 'node:http';

export interface Arrivals {
  /** `data.version` of each delivery's body, in order of arrival. */
  versions: number[];
  /** When each arrived: performance.timeOrigin + performance.now(), comparable across processes. */
  at: number[];
  /** The same webhook-id delivered to the same URL again. */
  duplicates: number;
}

let versions: number[] = [];
let at: number[] = [];
let duplicates = 0;
const seen = new Set<string>();
let waiting: { count: number; timer: NodeJS.Timeout } | undefined;

function answer(): void {
  if (waiting) clearTimeout(waiting.timer);
  waiting = undefined;
  const arrivals: Arrivals = { versions, at, duplicates };
  versions = [];
  at = [];
  duplicates = 0;
  process.send?.(arrivals);
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const now = performance.timeOrigin + performance.now();
    response.writeHead(204).end();
    const key = `${request.url} ${String(request.headers['webhook-id'])}`;
    if (seen.has(key)) duplicates++;
    seen.add(key);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { version?: unknown } };
    versions.push(typeof body.data?.version === 'number' ? body.data.version : -1);
    at.push(now);
    if (waiting && versions.length >= waiting.count) answer();
  });
});

process.on('message', (message: { collect: number; timeoutMs: number }) => {
  if (versions.length >= message.collect) answer();
  else waiting = { count: message.collect, timer: setTimeout(answer, message.timeoutMs) };
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.send?.({ url: `http://127.0.0.1:${address.port}` });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
