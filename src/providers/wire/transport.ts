/**
 * POSTs a wire request and reads the whole answer. By default through one
 * keep-alive undici pool per origin, so a refine reuses a warm connection
 * instead of paying a TCP (and TLS) handshake; tests may inject a fetch.
 */
import type { Pool } from 'undici';
import type { WireRequest } from './wire-format.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Transport = (baseUrl: string, request: WireRequest, signal: AbortSignal) => Promise<HttpAnswer>;

// One pool per origin; the promise is stored so concurrent first calls share it.
const pools = new Map<string, Promise<Pool>>();

// undici is a tenth of a second of startup: loaded on first use, or by warmTransport once listening.
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

/** Loads the HTTP client in the background, so the first refine does not pay for it. */
export function warmTransport(): void {
  void loadUndici();
}

function poolFor(origin: string): Promise<Pool> {
  let pool = pools.get(origin);
  if (!pool) {
    // No timeouts here: the refine deadline aborts the request, whatever the provider does.
    pool = loadUndici().then(({ Pool }) => new Pool(origin, { keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 }));
    pools.set(origin, pool);
  }
  return pool;
}

/** A provider answer larger than this is not a rewrite of at most 100,000 characters. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export const pooledTransport: Transport = async (baseUrl, request, signal) => {
  const url = new URL(baseUrl + request.path);
  const response = await (await poolFor(url.origin)).request({
    method: 'POST',
    path: url.pathname + url.search,
    headers: request.headers,
    body: request.body,
    signal,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      response.body.destroy();
      throw new AnswerTooLargeError();
    }
    chunks.push(chunk);
  }
  return { status: response.statusCode, headers: flatten(response.headers), body: Buffer.concat(chunks).toString('utf8') };
};

/** The provider sent more than any rewrite could need; treated as an unusable answer. */
export class AnswerTooLargeError extends Error {
  constructor() {
    super(`answer larger than ${MAX_ANSWER_BYTES} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return async (baseUrl, request, signal) => {
    const response = await fetchImpl(baseUrl + request.path, { method: 'POST', headers: request.headers, body: request.body, signal });
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
  };
}

export async function closeTransportPools(): Promise<void> {
  const open = [...pools.values()];
  pools.clear();
  await Promise.all(open.map(async (pool) => (await pool).close()));
}
