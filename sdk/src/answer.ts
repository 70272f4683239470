/**
 * Turning one HTTP answer into a body or a PersonaRefineError: read with a size cap, refuse
 * redirects, check the body has the shape the call expects. Whatever the server (or something
 * pretending to be it) sends, the caller gets either the value or a PersonaRefineError.
 */
import { AnswerTooLargeError, PermissionError, PersonaRefineError, PreconditionFailedError } from './errors.js';
import { parseRetryAfter } from './retry-policy.js';

/** What a call's 2xx body must be: a JSON object, a JSON array, or nothing (204). */
export type AnswerShape = 'object' | 'array' | 'none';

/** 64 MiB: well above the largest answer the service sends (an account's whole persona list). */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const requestIdOf = (response: Response) => response.headers.get('x-request-id') ?? undefined;

/**
 * The API never redirects. A redirect means `baseUrl` points at something else (a proxy, the
 * http→https hop), and following it would resend the key and the provider keys to wherever it
 * points, or turn a POST into a GET. The error names the location so the fix is obvious.
 */
export function redirectError(response: Response): PersonaRefineError | undefined {
  // A browser hides a manual redirect's status and location ("opaqueredirect").
  if (response.type === 'opaqueredirect') {
    return new PersonaRefineError({ kind: 'http', message: 'persona-refine answered with a redirect, which the SDK does not follow; set baseUrl to the server\'s own address' });
  }
  if (response.status < 300 || response.status > 399) return undefined;
  const location = response.headers.get('location');
  return new PersonaRefineError({
    kind: 'http',
    status: response.status,
    message: `persona-refine answered with a redirect (HTTP ${response.status}) to ${location === null ? 'nowhere' : JSON.stringify(location)}, which the SDK does not follow; set baseUrl to the server's own address`,
    requestId: requestIdOf(response),
  });
}

/** The body as text, at most `limitBytes` of it: past that, reading stops and the connection closes. */
export async function readCapped(response: Response, limitBytes: number): Promise<string> {
  const tooLarge = () => new AnswerTooLargeError({ what: `the HTTP ${response.status} answer`, limitBytes, status: response.status, requestId: requestIdOf(response) });
  const declared = Number(response.headers.get('content-length'));
  if (declared > limitBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

export function errorFromResponse(response: Response, text: string): PersonaRefineError {
  let message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown } | null;
    // The OpenAI-compatible routes answer OpenAI's error body, `{ error: { message, type, param, code } }`.
    const nested = typeof body?.error === 'object' && body.error !== null ? (body.error as { message?: unknown }).message : undefined;
    if (typeof body?.message === 'string') message = body.message;
    else if (typeof nested === 'string') message = nested;
  } catch {
    // Not our JSON error body (a proxy's HTML page, say): the status line is the best message.
  }
  const init = {
    message,
    // A provider's failure says so in X-Error-Source and by its message's start (`provider "<id>" …`).
    source: response.headers.get('x-error-source') === 'provider' || message.startsWith('provider "') ? ('provider' as const) : ('service' as const),
    requestId: requestIdOf(response),
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
  };
  if (response.status === 412) return new PreconditionFailedError(init);
  if (response.status === 403) return new PermissionError(init);
  return new PersonaRefineError({ ...init, kind: 'http', status: response.status });
}

const shapeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);

/** A 2xx body as the call expects it, or a PersonaRefineError saying what came instead. */
export function parseAnswer(response: Response, text: string, expected: AnswerShape): unknown {
  const wrong = (detail: string, cause?: unknown) =>
    new PersonaRefineError({ kind: 'http', status: response.status, message: `HTTP ${response.status} answer ${detail}`, requestId: requestIdOf(response), cause });
  if (expected === 'none') return undefined;
  if (text.trim() === '') throw wrong(`is empty; expected a JSON ${expected}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw wrong('is not valid JSON', cause);
  }
  const fits = expected === 'array' ? Array.isArray(body) : typeof body === 'object' && body !== null && !Array.isArray(body);
  if (!fits) throw wrong(`is ${shapeOf(body)}; expected a JSON ${expected}`);
  return body;
}
