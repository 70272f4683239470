/**
 * `client.chat(…)`: POST /v1/chat/completions, the persona applied while the provider generates.
 * The persona and the provider key travel in headers (`X-Persona`, `X-Provider-Api-Key`), as an
 * `openai` client configured with default headers sends them; the body is OpenAI's own.
 */
import type { ChatCompletion, ChatInput, ChatStreamInput } from './chat-types.js';
import { PersonaRefineError } from './errors.js';
import { isHeaderSafe } from './key-check.js';
import { parseProvider, parseScore, parseUsage, parseViolations } from './refine-result.js';
import type { ApiRequest } from './transport.js';

/** What the persona-refine headers say about a completion; not enumerable, so the result serializes as OpenAI's body. */
export interface ChatPersonaHeaders {
  /** The persona version the completion used (`X-Persona-Version`). */
  readonly personaVersion: number;
  /** The persona's variant the completion used (`X-Persona-Variant`); undefined when none was named. */
  readonly personaVariant: string | undefined;
  /** How well the final text matches the persona, 0–100 (`X-Persona-Score`); undefined when the rules were skipped or not sent. */
  readonly score: number | undefined;
  /** The persona's rules still broken after the fixes and the one repair call (`X-Persona-Violations`); `{}` when none. */
  readonly violations: Readonly<Record<string, number>>;
  /** `skipped` when the answer is tool calls or JSON (`X-Persona-Rules`): its text was not rewritten. */
  readonly rules: 'applied' | 'skipped';
  /** Provider calls the completion made, the repair call included (`X-Usage`); its tokens are the body's `usage`. */
  readonly providerCalls: number;
  /** Who answered (`X-Provider`). */
  readonly provider: Readonly<{ id: string; model?: string }>;
  /** The service's `X-Request-Id`: quote it when reporting a problem, or send feedback for it. */
  readonly requestId: string | undefined;
}

export type ChatResult = ChatCompletion & ChatPersonaHeaders;

/** The request for a completion; the keys and persona are checked before anything is sent. */
export function chatRequest(input: ChatInput | ChatStreamInput, stream: boolean): ApiRequest {
  const { persona, variant, providerApiKey, ...body } = input;
  const { includeUsage, ...completion } = body as Omit<ChatStreamInput, 'persona' | 'providerApiKey'>;
  if (typeof persona !== 'string' || !isHeaderSafe(persona)) {
    throw new TypeError('PersonaRefine: persona must be a persona id, `id@label` or `id:version` (visible ASCII); nothing was sent');
  }
  if (variant !== undefined && (typeof variant !== 'string' || !isHeaderSafe(variant))) {
    throw new TypeError('PersonaRefine: variant must be a variant name of visible ASCII (it travels in X-Persona-Variant); nothing was sent');
  }
  if (providerApiKey !== undefined && !isHeaderSafe(providerApiKey)) {
    throw new TypeError('PersonaRefine: providerApiKey must be visible ASCII (it travels in a header; a pasted newline?); nothing was sent');
  }
  const streamed = stream ? { stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) } : {};
  return {
    method: 'POST',
    path: '/chat/completions',
    body: { ...completion, ...streamed },
    headers: {
      'x-persona': persona,
      ...(variant === undefined ? {} : { 'x-persona-variant': variant }),
      ...(providerApiKey === undefined ? {} : { 'x-provider-api-key': providerApiKey }),
      ...(stream ? { accept: 'text/event-stream' } : {}),
    },
  };
}

export function chatPersonaHeaders(headers: Headers): ChatPersonaHeaders {
  return {
    personaVersion: Number(headers.get('x-persona-version')),
    personaVariant: headers.get('x-persona-variant') ?? undefined,
    score: parseScore(headers.get('x-persona-score')),
    violations: parseViolations(headers.get('x-persona-violations')),
    rules: headers.get('x-persona-rules')?.trim() === 'skipped' ? 'skipped' : 'applied',
    providerCalls: parseUsage(headers.get('x-usage')).providerCalls,
    provider: parseProvider(headers.get('x-provider')),
    requestId: headers.get('x-request-id') ?? undefined,
  };
}

/** `target` with `fields` as non-enumerable members. */
export function withHidden<T extends object, F extends object>(target: T, fields: F): T & F {
  for (const [name, value] of Object.entries(fields)) Object.defineProperty(target, name, { value, enumerable: false });
  return target as T & F;
}

/** A 2xx body that is a completion with its one choice, or a PersonaRefineError saying what came instead. */
export function chatResult(body: unknown, headers: Headers): ChatResult {
  const choice = (body as { choices?: unknown }).choices;
  const message = Array.isArray(choice) ? (choice[0] as { message?: unknown } | undefined)?.message : undefined;
  if (typeof message !== 'object' || message === null) {
    throw new PersonaRefineError({ kind: 'http', status: 200, message: 'HTTP 200 answer has no choices[0].message', requestId: headers.get('x-request-id') ?? undefined });
  }
  return withHidden(body as ChatCompletion, chatPersonaHeaders(headers));
}
