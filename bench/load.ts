/**
 * The two load shapes the bench needs:
 * - closedLoop: N connections each sending as fast as answers come back (autocannon) → throughput;
 * - openLoop: requests started on a fixed schedule whatever the server does → latency at a given rate.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import autocannon, { type Options, type Result } from 'autocannon';
import { treeCpuSeconds } from './processes.js';

export interface Throughput {
  /** 2xx answers per second. */
  rps: number;
  ok: number;
  /** Non-2xx answers, connection errors and timeouts together. */
  failed: number;
  statusCodes: Record<string, number>;
  /** Server CPU time per answered request, in µs (NaN when the target has no pid). */
  cpuUs: number;
}

function cannon(options: Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export interface Target {
  url: string;
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
  /** The server process behind `url`, to charge its CPU time to the run. */
  pid?: number;
  /** Send a fresh `Idempotency-Key` with every request, as the SDK does on every POST. */
  idempotent?: boolean;
}

/** autocannon replaces `[<id>]` with a new UUID in every request it sends. */
const withKeys = (request: Omit<Target, 'pid' | 'idempotent'>, idempotent: boolean | undefined): Omit<Options, 'connections'> =>
  idempotent ? { ...request, headers: { ...request.headers, 'idempotency-key': '[<id>]' }, idReplacement: true } : request;

/** Runs `measure` and reports the CPU time the target's process tree spent per request meanwhile. */
async function charged<T>(pid: number | undefined, measure: () => Promise<T>, requests: (result: T) => number): Promise<[T, number]> {
  const before = pid === undefined ? 0 : treeCpuSeconds(pid);
  const result = await measure();
  const cpuUs = pid === undefined ? Number.NaN : ((treeCpuSeconds(pid) - before) * 1e6) / Math.max(1, requests(result));
  return [result, cpuUs];
}

/** Warm-up (discarded: JIT, connection setup, caches) then the measured run. */
export async function closedLoop(target: Target, connections: number, seconds: number, warmupSeconds: number): Promise<Throughput> {
  const { pid, idempotent, ...request } = target;
  const options: Options = { ...withKeys(request, idempotent), connections, timeout: 10 };
  if (warmupSeconds > 0) await cannon({ ...options, duration: warmupSeconds });
  const [result, cpuUs] = await charged(pid, () => cannon({ ...options, duration: seconds }), (r) => r['2xx'] + r.non2xx);
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  return {
    rps: result['2xx'] / result.duration,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
    statusCodes,
    cpuUs,
  };
}

/** Exactly `count` requests over `count` connections opened at once (autocannon gives each connection one). */
export async function burst(target: Target, count: number, timeoutSeconds: number): Promise<Throughput & { seconds: number }> {
  const { pid, idempotent, ...request } = target;
  const [result, cpuUs] = await charged(pid, () => cannon({ ...withKeys(request, idempotent), connections: count, amount: count, timeout: timeoutSeconds }), (r) => r['2xx'] + r.non2xx);
  return {
    rps: result['2xx'] / result.duration,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count: n }]) => [code, n])),
    cpuUs,
    seconds: result.duration,
  };
}

export interface Latency {
  /** Milliseconds, sub-millisecond resolution. */
  p50: number;
  p90: number;
  p99: number;
  sent: number;
  ok: number;
  failed: number;
  /** 2xx answers per second actually achieved over the run. */
  achievedRate: number;
  /** How late the generator started requests (ms, p99): if this is large the generator, not the server, limited the rate. */
  lateStartP99: number;
  /** Server CPU time per request, in µs (NaN when the target has no pid). */
  cpuUs: number;
}

/** The middle value (rounds of a comparison: the median round is the one reported). */
export const median = (values: number[]): number => percentile([...values].sort((a, b) => a - b), 50);

/**
 * The round whose `figure` is the median one, so a row's details all come from one round. A round
 * with no figure (NaN: nothing answered) sorts last, as the worst, instead of matching no round.
 */
export function medianRound<T>(rounds: T[], figure: (round: T) => number): T {
  const key = (round: T) => (Number.isNaN(figure(round)) ? Infinity : figure(round));
  return [...rounds].sort((a, b) => key(a) - key(b))[Math.ceil(rounds.length / 2) - 1]!;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Why not autocannon's overallRate: autocannon rate-limits per connection per second — each
 * connection sends its quota back to back at the top of every second, then idles. That is a
 * burst at full concurrency, and the latencies it records are queueing delays, not the
 * added cost of one request at 1,000/s. Its histogram also only has whole milliseconds.
 * Here request i starts at t0 + i/rate (open loop), over a keep-alive pool, and each latency
 * is measured with hrtime from the moment the request is issued to the last byte of the answer.
 */
export async function openLoop(target: Target, rate: number, seconds: number, maxSockets: number, onAnswer?: OnAnswer): Promise<Latency> {
  const [result, cpuUs] = await charged(target.pid, () => schedule(target, rate, seconds, maxSockets, onAnswer), (r) => r.sent);
  return { ...result, cpuUs };
}

/**
 * Given each 2xx answer's headers and when its last byte came, as performance.timeOrigin +
 * performance.now(): a time another process on the machine can compare its own with.
 */
export type OnAnswer = (headers: IncomingHttpHeaders, at: number) => void;

async function schedule(target: Target, rate: number, seconds: number, maxSockets: number, onAnswer: OnAnswer | undefined): Promise<Omit<Latency, 'cpuUs'>> {
  const url = new URL(target.url);
  const agent = new Agent({ keepAlive: true, maxSockets });
  const body = target.body === undefined ? undefined : Buffer.from(target.body);
  const headers = { ...target.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
  // Unique across runs against the same service: a key seen before would be replayed, not run.
  const keyPrefix = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-`;
  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  const lateness = new Float64Array(total);
  let ok = 0;
  let sent = 0;
  let settled = 0;
  let lastOkAt = 0;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));

  const fire = (index: number) => {
    const started = performance.now();
    const sent = target.idempotent ? { ...headers, 'idempotency-key': keyPrefix + index } : headers;
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: target.method ?? 'GET', headers: sent, agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => {
        const now = performance.now();
        if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) {
          latencies[ok++] = now - started;
          lastOkAt = now;
          onAnswer?.(res.headers, performance.timeOrigin + now);
        }
        if (++settled === total) finish();
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => {
      if (++settled === total) finish();
    });
    req.end(body);
    lateness[index] = started - (t0 + (index * 1000) / rate);
  };

  const t0 = performance.now();
  // A 1 ms ticker that starts every request whose time has come; setInterval is only as
  // precise as the event loop, and lateStartP99 reports how far behind it fell.
  const ticker = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
    while (sent < due) fire(sent++);
    if (sent === total) clearInterval(ticker);
  }, 1);
  // An overloaded server can queue thousands of requests; what it has not answered 5 s after
  // the schedule ended counts as failed, which keeps a run's length bounded.
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 5_000))]);
  clearInterval(ticker);
  agent.destroy();
  const measured = latencies.slice(0, ok).sort();
  return {
    p50: percentile(measured, 50),
    p90: percentile(measured, 90),
    p99: percentile(measured, 99),
    sent,
    ok,
    failed: sent - ok,
    achievedRate: ok / (Math.max(lastOkAt - t0, seconds * 1000) / 1000),
    lateStartP99: percentile(lateness.slice(0, sent).sort(), 99),
  };
}
