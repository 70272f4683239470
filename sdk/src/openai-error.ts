/**
 * OpenAI's error body, `{ error: { message, type, param, code } }`, as the chat route sends it
 * mid-stream, where no HTTP status comes with it: the status the same failure gets without
 * streaming, read from its `type` and the service's error `code` (docs/chat-completions.md,
 * "Errors"). The studio reads streams with this too.
 */

const STATUS_BY_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  rate_limit_error: 429,
};

/** The 5xx codes a stream can end with; any other server error is a 500. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = { provider_failed: 502, unavailable: 503, provider_timeout: 504 };

export interface StreamFailure {
  status: number;
  message: string;
  /** A provider's failure: its message starts `provider "<id>"`. */
  source: 'service' | 'provider';
}

export function streamFailure(error: Record<string, unknown>): StreamFailure {
  const message = typeof error.message === 'string' ? error.message : 'the stream failed';
  const source = message.startsWith('provider "') ? 'provider' : 'service';
  const byCode = typeof error.code === 'string' ? STATUS_BY_CODE[error.code] : undefined;
  const byType = typeof error.type === 'string' ? STATUS_BY_TYPE[error.type] : undefined;
  return { status: byCode ?? byType ?? (source === 'provider' ? 502 : 500), message, source };
}
