/** One line for a failure, with what a person needs to act on it or report it. */
import { PersonaRefineError } from '../index.js';

export function describeError(error: unknown): string {
  if (!(error instanceof PersonaRefineError)) return error instanceof Error ? error.message : String(error);
  const details = [
    error.status === 0 ? error.kind : `HTTP ${error.status}`,
    ...(error.source === 'provider' ? ['from the provider'] : []),
    ...(error.requestId ? [`request id ${error.requestId}`] : []),
  ];
  return `${error.message} (${details.join(', ')})`;
}
