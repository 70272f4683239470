/** Where the service's log lines go, in the format the configuration chose. */
import { type DestinationStream, pino } from 'pino';
import type { LogFormat } from '../config.js';

/** JSON lines are written in batches of about this many bytes… */
const BATCH_BYTES = 4_096;
/** …or after at most this long when traffic is light. */
const FLUSH_EVERY_MS = 1_000;

const batched = new Set<DestinationStream & { flush(): void }>();

/** Writes the lines still waiting in a batch now (the start-up lines, around the first start's banner). */
export function flushLogs(): void {
  for (const destination of batched) destination.flush();
}

export async function logDestination(format: LogFormat): Promise<DestinationStream> {
  if (format.kind === 'pretty') return (await import('./pretty-log.js')).prettyDestination(format.colour);
  // Asynchronous, batched writes: one write(2) per line was most of what the request log line
  // cost. A line waits at most FLUSH_EVERY_MS; what is left is written when the process exits.
  const destination = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  const timer = setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  batched.add(destination);
  destination.once('close', () => {
    clearInterval(timer);
    batched.delete(destination);
  });
  return destination;
}
