/**
 * One delivery attempt (docs/webhooks.md, "Delivery"): a POST that must answer 2xx within the
 * timeout. Redirects are failures, not followed; the status decides, and at most 64 KiB of the
 * body is read (to keep the connection for the next delivery; headers are bounded by Node's
 * 16 KiB limit); every address a connection uses is checked as it connects.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type AllowedHosts, bareHost, refusedAddress } from './address-policy.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Name → addresses; the system resolver unless a test gives another. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;
export const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface Attempt {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type AttemptResult = { delivered: true; statusCode: number } | { delivered: false; statusCode: number | null; error: string };

class RefusedAddress extends Error {}

/** Why a URL may not be used at all, before any address is known; undefined when it may. */
export function refusedUrl(url: URL, allowedHosts: AllowedHosts): string | undefined {
  const allowed = allowedHosts.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) return 'url must use https (http only for a host in WEBHOOK_ALLOWED_HOSTS)';
  if (url.username !== '' || url.password !== '') return 'url may not carry a user name or password';
  if (allowed) return undefined;
  const host = bareHost(url.hostname);
  if (isIP(host) !== 0) return refusedAddress(host, host);
  if (host === 'localhost' || host.endsWith('.localhost')) return `host "${host}" is a loopback name; only hosts in WEBHOOK_ALLOWED_HOSTS may be internal`;
  return undefined;
}

/** Resolves as the connection asks and refuses it when any address the name has is internal. */
function guardedLookup(resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const answer = resolve(hostname).then((addresses) => {
      const refusal = addresses.map(({ address }) => refusedAddress(hostname, address)).find((reason) => reason !== undefined);
      if (refusal !== undefined) throw new RefusedAddress(refusal);
      const usable = options.family === 4 || options.family === 6 ? addresses.filter(({ family }) => family === options.family) : addresses;
      if (usable.length === 0) throw Object.assign(new Error(`host "${hostname}" not found`), { code: 'ENOTFOUND' });
      return usable;
    });
    answer.then(
      (usable) => {
        if (options.all) (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function describe(error: NodeJS.ErrnoException, hostname: string, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer within ${timeoutMs / 1000} s`;
  if (error instanceof RefusedAddress) return error.message;
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset before an answer';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `host "${hostname}" not found`;
    case 'ETIMEDOUT':
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return `host "${hostname}" unreachable (${error.code})`;
    default:
      return error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT') ? `TLS failed: ${error.message}` : `request failed: ${error.message}`;
  }
}

/** Bytes of an answer's body read at most; a longer one closes its connection. */
const ANSWER_READ_LIMIT = 64 * 1024;

export class WebhookSender {
  private readonly lookup: LookupFunction;
  /** Connections kept between deliveries to the same receiver; each was checked as it connected. */
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxFreeSockets: 16, timeout: 30_000 }),
    https: new https.Agent({ keepAlive: true, maxFreeSockets: 16, timeout: 30_000 }),
  };

  constructor(private readonly options: { allowedHosts: AllowedHosts; resolve: Resolve; timeoutMs: number }) {
    this.lookup = guardedLookup(options.resolve);
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  send(attempt: Attempt): Promise<AttemptResult> {
    const { allowedHosts, timeoutMs } = this.options;
    let url: URL;
    try {
      url = new URL(attempt.url);
    } catch {
      return Promise.resolve({ delivered: false, statusCode: null, error: 'url is not a valid URL' });
    }
    const refusal = refusedUrl(url, allowedHosts);
    if (refusal !== undefined) return Promise.resolve({ delivered: false, statusCode: null, error: refusal });
    return new Promise((resolve) => {
      let timedOut = false;
      const request = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: 'POST',
          headers: { ...attempt.headers, 'content-length': String(Buffer.byteLength(attempt.body)) },
          agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
          ...(allowedHosts.has(url.hostname) ? {} : { lookup: this.lookup }),
        },
        (response) => {
          const statusCode = response.statusCode ?? 0;
          if (statusCode >= 200 && statusCode < 300) resolve({ delivered: true, statusCode });
          else if (statusCode >= 300 && statusCode < 400) resolve({ delivered: false, statusCode, error: `answered ${statusCode}: redirects are not followed` });
          else resolve({ delivered: false, statusCode, error: `answered ${statusCode}` });
          // The status is the answer; the body is read (to keep the connection) only this far.
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > ANSWER_READ_LIMIT) response.destroy();
          });
          response.on('error', () => {});
          response.on('close', () => clearTimeout(timer));
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error('timed out'));
      }, timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve({ delivered: false, statusCode: null, error: describe(error, bareHost(url.hostname), timeoutMs, timedOut) });
      });
      request.end(attempt.body);
    });
  }
}
