/**
 * POSTs a wire request and hands back the status, the headers and the body as it
 * arrives; reading (whole, capped, or as a stream of events) is the attempt's business.
 * By default through one keep-alive undici pool per origin, so a refine reuses a warm
 * connection instead of paying a TCP (and TLS) handshake; tests may inject a fetch.
 */
import type { Pool } from 'undici';
import type { WireRequest } from './wire-format.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Ends early (and frees the connection) when the request's signal aborts or the reader stops. */
  body: AsyncIterable<Uint8Array>;
}

export type Transport = (baseUrl: string, request: WireRequest, signal: AbortSignal) => Promise<HttpResponse>;

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
  return { status: response.statusCode, headers: flatten(response.headers), body: response.body };
};

const noBody: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return async (baseUrl, request, signal) => {
    const response = await fetchImpl(baseUrl + request.path, { method: 'POST', headers: request.headers, body: request.body, signal });
    const body = (response.body as AsyncIterable<Uint8Array> | null) ?? noBody;
    return { status: response.status, headers: Object.fromEntries(response.headers), body };
  };
}

export async function closeTransportPools(): Promise<void> {
  const open = [...pools.values()];
  pools.clear();
  await Promise.all(open.map(async (pool) => (await pool).close()));
}
