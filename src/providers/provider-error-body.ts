/**
 * Reading the error bodies providers send. One reader for every format we meet:
 *   OpenAI, Groq, DeepSeek, OpenAI-compatible: { "error": { "message", "type", "param", "code" } }
 *   Anthropic:                                  { "type": "error", "error": { "type", "message" } }
 *   Google:                                     { "error": { "code", "message", "status", "details" } }
 *   Mistral:                                    { "object": "error", "message", "type", … } or { "detail": … }
 *   xAI, Ollama:                                { "code"?, "error": "<message>" }
 *   FastAPI-based servers (vLLM):               { "detail": "…" | [{ "loc", "msg" }] }
 */

import { isJsonObject } from '../json-object.js';

export function parseErrorBody(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function detailMessage(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  if (!Array.isArray(detail)) return undefined;
  const parts = detail
    .filter(isJsonObject)
    .map((item) => {
      const where = Array.isArray(item.loc) ? `${item.loc.join('.')}: ` : '';
      return typeof item.msg === 'string' ? `${where}${item.msg}` : undefined;
    })
    .filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** The human-readable message in a provider's error body, if it has one. */
export function errorBodyMessage(body: unknown): string | undefined {
  if (!isJsonObject(body)) return undefined;
  if (isJsonObject(body.error) && typeof body.error.message === 'string') return body.error.message;
  if (typeof body.error === 'string') return body.error;
  if (typeof body.message === 'string') return body.message;
  // Mistral wraps request validation errors: { "message": { "detail": [...] } }.
  if (isJsonObject(body.message)) return detailMessage(body.message.detail);
  return detailMessage(body.detail);
}

/**
 * Google sends no Retry-After header on 429; it puts
 * { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s" } in `details`.
 */
export function retryDelayFromBody(body: unknown): number | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.error) || !Array.isArray(body.error.details)) return undefined;
  for (const detail of body.error.details) {
    if (!isJsonObject(detail) || typeof detail.retryDelay !== 'string') continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay);
    if (match?.[1]) return Number(match[1]) * 1000;
  }
  return undefined;
}
