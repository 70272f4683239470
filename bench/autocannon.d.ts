/**
 * The slice of autocannon@9's API the bench uses. Local on purpose: it keeps
 * @types/autocannon out of the root devDependencies for a handful of fields.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Stop after this many requests in total (overrides duration). */
    amount?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    pipelining?: number;
    /** Replace `[<id>]` in headers and body with a new UUID per request. */
    idReplacement?: boolean;
  }

  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }

  export interface Result {
    latency: Histogram;
    requests: Histogram;
    /** Seconds the run actually took. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
