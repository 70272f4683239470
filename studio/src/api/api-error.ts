/** Every failed call as one type: the service's `{ error, message }` body plus the headers that matter. */

/** Who failed: the service, the LLM provider behind it (`X-Error-Source: provider`), or the network. */
export type ErrorSource = 'service' | 'provider' | 'network';

export class ApiError extends Error {
  constructor(
    /** The HTTP status; 0 when no answer arrived. */
    readonly status: number,
    message: string,
    readonly source: ErrorSource,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export async function errorFromResponse(response: Response): Promise<ApiError> {
  let message = `the service answered HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { message?: unknown; error?: unknown };
    // The OpenAI-compatible route answers OpenAI's error body, `{ error: { message, type, param, code } }`.
    const nested = typeof body.error === 'object' && body.error !== null ? (body.error as { message?: unknown }).message : undefined;
    if (typeof body.message === 'string') message = body.message;
    else if (typeof nested === 'string') message = nested;
  } catch {
    // Not our JSON error body (a proxy's HTML page, say): the status alone has to do.
  }
  // A provider's failure also says so by its message's start (docs/http-contract.md, "Errors").
  const source = response.headers.get('x-error-source') === 'provider' || message.startsWith('provider "') ? 'provider' : 'service';
  const retryAfter = Number(response.headers.get('retry-after') ?? '');
  return new ApiError(response.status, message, source, retryAfter > 0 ? retryAfter : undefined);
}

export const unreachable = () =>
  new ApiError(0, 'Could not reach the service. Check that it is running, then try again.', 'network');

/** The service's messages are lower-case clauses ("name must be …"); shown alone they read better as sentences. */
export function asSentence(message: string): string {
  const text = message.trim();
  if (text === '') return text;
  const capitalized = text[0]!.toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(capitalized) ? capitalized : `${capitalized}.`;
}
