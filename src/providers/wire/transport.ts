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

const pools = new Map<string, Pool>();

// undici is a tenth of a second of startup: loaded on first use, or by warmTransport once listening.
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

/** Loads the HTTP client in the background, so the first refine does not pay for it. */
export function warmTransport(): void {
  void loadUndici();
}

async function poolFor(origin: string): Promise<Pool> {
  let pool = pools.get(origin);
  if (!pool) {
    const { Pool } = await loadUndici();
    // No timeouts here: the refine deadline aborts the request, whatever the provider does.
    pool = new Pool(origin, { keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });
    pools.set(origin, pool);
  }
  return pool;
}

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
  return { status: response.statusCode, headers: flatten(response.headers), body: await response.body.text() };
};

export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return async (baseUrl, request, signal) => {
    const response = await fetchImpl(baseUrl + request.path, { method: 'POST', headers: request.headers, body: request.body, signal });
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
  };
}

export async function closeTransportPools(): Promise<void> {
  await Promise.all([...pools.values()].map((pool) => pool.close()));
  pools.clear();
}
