/** Where the service's log lines go, in the format the configuration chose. */
import { type DestinationStream, pino } from 'pino';
import type { LogFormat } from '../config.js';

export async function logDestination(format: LogFormat): Promise<DestinationStream> {
  if (format.kind === 'pretty') return (await import('./pretty-log.js')).prettyDestination(format.colour);
  // Asynchronous writes: a synchronous write per log line was a syscall on every request.
  return pino.destination({ dest: 1, sync: false });
}
