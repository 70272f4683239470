/**
 * Generating in the persona's voice through POST /v1/chat/completions, the OpenAI-compatible
 * route: one user message in, the answer and the persona headers out, whole or streamed. The
 * provider key leaves the page only in `X-Provider-Api-Key` on that request.
 */
import { EventStreamParser, type ServerSentEvent } from '../../../sdk/src/event-stream-parser.js';
import { streamFailure } from '../../../sdk/src/openai-error.js';
import { ApiError, unreachable } from './api-error.js';
import type { RefineOutcome } from './client.js';
import { parseServerTiming } from './server-timing.js';
import { parseUsage, type RefineUsage } from './usage.js';

export interface GenerateRequest {
  personaId: string;
  /** `provider` or `provider/model`, as the route's `model` reads it. */
  model: string;
  providerApiKey?: string;
  prompt: string;
  /** One of the persona's `variants`, sent as `X-Persona-Variant`. */
  variant?: string;
}

/** What a refine outcome says (who, what it cost, how long), plus what the persona headers say. */
export interface GenerateOutcome extends RefineOutcome {
  /** `X-Persona-Version`. */
  personaVersion: number | undefined;
  /** `X-Persona-Score`, 0–100; undefined on a stream (its headers leave before the text). */
  score: number | undefined;
  /** `X-Persona-Violations`, rule → count (`{}`: every rule kept); undefined on a stream, and when the rules were skipped (`X-Persona-Rules`). */
  violations: Record<string, number> | undefined;
}

export function chatHeaders(request: GenerateRequest): Record<string, string> {
  return {
    'x-persona': request.personaId,
    ...(request.variant === undefined ? {} : { 'x-persona-variant': request.variant }),
    ...(request.providerApiKey === undefined ? {} : { 'x-provider-api-key': request.providerApiKey }),
  };
}

export function chatBody(request: GenerateRequest, stream: boolean): unknown {
  return {
    model: request.model,
    messages: [{ role: 'user', content: request.prompt }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** `avoid=1,maxWords=1` → `{ avoid: 1, maxWords: 1 }`; absent when none is broken. */
function parseViolations(header: string | null): Record<string, number> {
  const violations: Record<string, number> = {};
  for (const pair of (header ?? '').split(',')) {
    const [rule, count] = pair.split('=').map((part) => part.trim());
    if (rule && count !== undefined && /^\d+$/.test(count)) violations[rule] = Number(count);
  }
  return violations;
}

const numberOf = (header: string | null) => (header !== null && /^\s*\d+\s*$/.test(header) ? Number(header) : undefined);

function outcomeOf(response: Response, text: string, usage: RefineUsage, started: number, whole: boolean): GenerateOutcome {
  const { headers } = response;
  return {
    response: text,
    timing: parseServerTiming(headers.get('server-timing')),
    answeredBy: headers.get('x-provider') ?? undefined,
    usage,
    cache: headers.get('x-cache') ?? undefined,
    variant: headers.get('x-persona-variant') ?? undefined,
    roundTripMs: performance.now() - started,
    personaVersion: numberOf(headers.get('x-persona-version')),
    score: whole ? numberOf(headers.get('x-persona-score')) : undefined,
    violations: whole && headers.get('x-persona-rules') !== 'skipped' ? parseViolations(headers.get('x-persona-violations')) : undefined,
  };
}

export async function readCompletion(response: Response, started: number): Promise<GenerateOutcome> {
  const body = (await response.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new ApiError(502, 'the answer has no text', 'service');
  return outcomeOf(response, content, parseUsage(response.headers.get('x-usage')), started, true);
}

/** OpenAI's chunks: `onText` gets the text so far after each; `[DONE]` ends the stream. */
export async function readCompletionStream(response: Response, started: number, signal: AbortSignal | undefined, onText: (text: string) => void): Promise<GenerateOutcome> {
  const reader = response.body!.getReader();
  const parser = new EventStreamParser();
  let text = '';
  let usage: RefineUsage = {};
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      if (signal?.aborted) throw error;
      throw unreachable();
    }
    let events: ServerSentEvent[];
    try {
      events = chunk.done ? parser.end() : parser.push(chunk.value);
    } catch (error) {
      void reader.cancel().catch(() => undefined);
      throw new ApiError(502, (error as Error).message, 'service');
    }
    for (const event of events) {
      if (event.data === '[DONE]') return outcomeOf(response, text, usage, started, false);
      const data = chunkData(event);
      const piece = data.choices?.[0]?.delta?.content;
      if (typeof piece === 'string' && piece !== '') onText((text += piece));
      if (data.usage) usage = { inputTokens: data.usage.prompt_tokens, outputTokens: data.usage.completion_tokens };
    }
    if (chunk.done) throw new ApiError(502, 'the stream ended before its end', 'service');
  }
}

interface ChunkData {
  choices?: Array<{ delta?: { content?: unknown } }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

/** A chunk's JSON, or the failure it reports (OpenAI's error body), or the service's failure to send one. */
function chunkData(event: ServerSentEvent): ChunkData {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    data = undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ApiError(502, 'the stream sent a chunk that is not a JSON object', 'service');
  const error = (data as { error?: unknown }).error;
  if (typeof error === 'object' && error !== null) {
    const { status, message, source } = streamFailure(error as Record<string, unknown>);
    throw new ApiError(status, message, source);
  }
  return data as ChunkData;
}
