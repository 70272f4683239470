/**
 * A fake LLM provider on a real loopback HTTP server, speaking the providers' real wire formats.
 *
 * One server impersonates every provider at once: the first path segment names the provider
 * and the rest is that provider's real API path, e.g. `${url}/anthropic/v1/messages`.
 * `baseUrl(id)` gives what to put in PROVIDER_BASE_URL_<ID>.
 *
 * What it answers is chosen, first match wins, by: a queued behaviour (`enqueue`), a model
 * named `fake-<mode>` (e.g. `fake-rateLimit`, to pick a failure per request; a stream's failure
 * after N pieces instead of 2 is `fake-<mode>-after-<N>`, e.g. `fake-streamStall-after-60`), the default
 * behaviour (`setBehaviour`, initially `ok`).
 *
 * Like the real APIs, it refuses with a 400 a conversation whose tool results answer no call
 * of the assistant turn before them (and, for Anthropic, turns whose roles do not alternate).
 */
import { EventEmitter } from 'node:events';
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ErrorKind, type WireAnswer, type WireApi,
  apiOf, errorAnswer, modelOf, publicBasePath, ratedAttributesOf, structuredRequestOf, structuredSuccessBody, successBody, userTextOf,
} from './provider-wire-formats.js';
import { byteHalves, piecesOf, streamScript } from './provider-streams.js';
import { conversationProblem, type FakeToolCall, withToolCalls } from './provider-tool-calls.js';

export const fakeModes = [
  'ok', // 200 with a reply
  'rejectKey', // the provider's bad-key answer (401, or 400 for Google/xAI), echoing part of the key
  'badRequest', // 400 in the provider's error format
  'rateLimit', // 429 with retry-after (Google: RetryInfo in the body)
  'serverError', // 500
  'overloaded', // 529 Anthropic, 503 others
  'garbage', // 200 with a body that is not JSON
  'malformed', // 200 with JSON of the wrong shape
  'hang', // accept the request, never write a byte
  'stallBody', // send 200 headers and half a body, then stall
  'slow', // wait delayMs, then ok
  'reset', // destroy the socket without answering
  // Streamed requests (`"stream": true`, Google's :streamGenerateContent?alt=sse) in `ok`/`slow` get a stream; and:
  'streamError', // stream failAfterPieces pieces, then the provider's error event
  'streamCut', // stream failAfterPieces pieces, then destroy the socket
  'streamStall', // stream failAfterPieces pieces, then send nothing more
] as const;
export type FakeMode = (typeof fakeModes)[number];

export interface FakeBehaviour {
  mode: FakeMode;
  /**
   * ok/slow: the reply text, or a function of the user message. Default: `Rewritten: <user message>`,
   * or no text when the answer calls tools.
   */
  reply?: string | ((userText: string) => string);
  /**
   * ok/slow: the answer calls these tools (after its text, if `reply` gives one), in the provider's
   * wire format, whole or streamed (a call's arguments in `pieceChars` pieces), with its finish reason.
   */
  toolCalls?: FakeToolCall[];
  /** ok/slow: the answer stopped at the output token limit (finish reason `length` in OpenAI's words). */
  truncated?: boolean;
  /** Error modes (streamError too): replaces the provider's default error message (e.g. to echo a key). */
  message?: string;
  /** rateLimit: the wait asked for, in seconds. Default 1. */
  retryAfterSeconds?: number;
  /** rateLimit: which header carries it. Default `seconds` (Retry-After). */
  retryAfterHeader?: 'seconds' | 'ms' | 'none';
  /** slow: delay before answering. Default 1000 ms. */
  delayMs?: number;
  /** Streams: the text pieces, one event each. Default: the reply cut every `pieceChars` characters. */
  pieces?: string[];
  /** Streams: characters per piece when `pieces` is not given. Default 3, which splits words. */
  pieceChars?: number;
  /** Streams: wait between two pieces. Default 0. */
  pieceDelayMs?: number;
  /**
   * Streams: write each event whole, in one write, as a provider's server does. Default
   * false: each event goes out in two writes that split its bytes (and so its characters).
   */
  wholeEvents?: boolean;
  /** streamError, streamCut, streamStall: pieces sent before the failure. Default 2. */
  failAfterPieces?: number;
  /** ok/slow: answer without the usage member, as some self-hosted servers do. */
  omitUsage?: boolean;
  /**
   * ok/slow, a request asking for structured output (the judge): the JSON the answer holds, or a
   * function of the attribute names its ratings schema allows. A string is sent as the text
   * verbatim (a model that broke the format). Default: every attribute rated 4, "Matches <attribute>.".
   */
  structured?: unknown;
}

/** The fake judge's default: every attribute the schema names, rated 4. */
export const fakeRatings = (attributes: readonly string[]) => ({
  ratings: attributes.map((attribute) => ({ attribute, rating: 4, reason: `Matches ${attribute}.` })),
});

/**
 * A hostile judge: its answer quotes `text` (the keys it was sent, say) where the service builds a
 * message from it: as the attribute's name or as the rating (both refused, and named in the
 * refusal), and always in the reason.
 */
export const quotingRatings = (text: string, where: 'attribute' | 'rating' | 'reason') => (attributes: readonly string[]) => ({
  ratings: attributes.map((attribute) => ({
    attribute: where === 'attribute' ? text : attribute,
    rating: where === 'rating' ? text : 2,
    reason: `It reads like ${text}.`,
  })),
});

export interface RecordedRequest {
  /** The provider this request was addressed to (first path segment). */
  provider: string;
  api: WireApi | undefined;
  method: string;
  /** Full path, including the provider segment and query. */
  path: string;
  /** The provider's own API path, e.g. `/v1/messages`. */
  apiPath: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  model: string;
  userText: string;
  /** The client closed the connection before the fake finished answering. */
  clientClosed: boolean;
  /** The request asked for a streamed answer. */
  stream: boolean;
}

export interface FakeProviderOptions {
  behaviour?: FakeMode | FakeBehaviour;
  /** Added before every answer (load tests: a provider that takes N ms). */
  latencyMs?: number;
  /** Keep requests in `requests`. Turn off for load tests; `requestCount` still counts. */
  record?: boolean;
}

export interface FakeProviderServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The base URL to configure for a provider id (built-in or operator-declared). */
  baseUrl(providerId: string): string;
  requests: RecordedRequest[];
  readonly requestCount: number;
  setBehaviour(behaviour: FakeMode | FakeBehaviour): void;
  /** The next requests get these, in order, before the default applies again. */
  enqueue(...behaviours: (FakeMode | FakeBehaviour)[]): void;
  setLatency(ms: number): void;
  waitForRequests(count: number): Promise<RecordedRequest[]>;
  waitForClientClose(request: RecordedRequest): Promise<void>;
  /** Forget requests and queued behaviours; back to `ok`. */
  reset(): void;
  close(): Promise<void>;
}

const ERROR_KINDS: readonly string[] = ['rejectKey', 'badRequest', 'rateLimit', 'serverError', 'overloaded'];
const asBehaviour = (b: FakeMode | FakeBehaviour): FakeBehaviour => (typeof b === 'string' ? { mode: b } : b);

function modeFromModel(model: string): FakeBehaviour | undefined {
  const [, mode = '', after] = /^fake-(\w+?)(?:-after-(\d+))?$/.exec(model) ?? [];
  if (!(fakeModes as readonly string[]).includes(mode)) return undefined;
  return after === undefined ? { mode: mode as FakeMode } : { mode: mode as FakeMode, failAfterPieces: Number(after) };
}

function presentedKey(api: WireApi, req: IncomingMessage, url: URL): string | undefined {
  const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
  if (api === 'anthropic-messages') return header('x-api-key');
  if (api === 'google-generate-content') return header('x-goog-api-key') ?? url.searchParams.get('key') ?? undefined;
  return /^Bearer (.+)$/.exec(header('authorization') ?? '')?.[1];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function send(res: ServerResponse, answer: WireAnswer): void {
  const payload = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...answer.headers,
  });
  res.end(payload);
}

const pause = (ms: number) => new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

function replyText(behaviour: FakeBehaviour, userText: string): string {
  const reply = behaviour.reply ?? (behaviour.toolCalls?.length ? '' : (text: string) => `Rewritten: ${text}`);
  return typeof reply === 'function' ? reply(userText) : reply;
}

/** A streamed answer, each event written in two halves that split bytes (and so characters) unless `wholeEvents`. */
async function streamAnswer(res: ServerResponse, api: WireApi, provider: string, model: string, userText: string, behaviour: FakeBehaviour, body: unknown): Promise<void> {
  const pieces = behaviour.pieces ?? piecesOf(replyText(behaviour, userText), behaviour.pieceChars ?? 3);
  const askedForUsage = (body as { stream_options?: { include_usage?: unknown } }).stream_options?.include_usage === true;
  const shape = { toolCalls: behaviour.toolCalls, truncated: behaviour.truncated };
  const script = streamScript(api, provider, model, userText, pieces, askedForUsage, behaviour.message, shape, behaviour.pieceChars ?? 3);
  const failing = behaviour.mode === 'streamError' || behaviour.mode === 'streamCut' || behaviour.mode === 'streamStall';
  const sent = failing ? script.pieces.slice(0, Math.min(behaviour.failAfterPieces ?? 2, script.pieces.length - 1)) : script.pieces;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const write = async (text: string) => {
    if (behaviour.wholeEvents) {
      if (!res.destroyed) res.write(text);
      return;
    }
    for (const half of byteHalves(text)) {
      if (res.destroyed) return;
      res.write(half);
      await pause(0);
    }
  };
  for (const text of script.head) await write(text);
  // Each piece is due at a fixed time from the start: a busy fake that wakes late catches
  // up instead of adding its lateness to every piece (100 late wake-ups would stretch a
  // 10 s stream far past the deadline, and the fake would be what a benchmark measures).
  const startedAt = Date.now();
  for (const [i, text] of sent.entries()) {
    await write(text);
    if (behaviour.pieceDelayMs) await pause(startedAt + (i + 1) * behaviour.pieceDelayMs - Date.now());
  }
  if (res.destroyed) return;
  if (behaviour.mode === 'streamCut') {
    res.socket?.destroy();
    return;
  }
  if (behaviour.mode === 'streamStall') return;
  if (behaviour.mode === 'streamError') {
    await write(script.error);
  } else {
    for (const text of script.tail) await write(text);
  }
  res.end();
}

export async function startFakeProviderServer(options: FakeProviderOptions = {}): Promise<FakeProviderServer> {
  let defaultBehaviour = asBehaviour(options.behaviour ?? 'ok');
  let latencyMs = options.latencyMs ?? 0;
  const record = options.record ?? true;
  const queue: FakeBehaviour[] = [];
  const requests: RecordedRequest[] = [];
  let requestCount = 0;
  const changes = new EventEmitter().setMaxListeners(0);

  function until<T>(check: () => T | undefined): Promise<T> {
    return new Promise((resolve) => {
      const test = () => {
        const value = check();
        if (value === undefined) return;
        changes.off('change', test);
        resolve(value);
      };
      changes.on('change', test);
      test();
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const [, provider = '', ...rest] = url.pathname.split('/');
    const apiPath = `/${rest.join('/')}`;
    const route = apiOf(apiPath);
    const rawBody = await readBody(req);
    const body = parse(rawBody);
    const api = route?.api;
    const model = api ? modelOf(api, body, route.pathModel) : '';
    const userText = api ? userTextOf(api, body) : '';
    const stream = route?.streamPath === true || (typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true);
    const recorded: RecordedRequest = {
      provider, api, method: req.method ?? '', path: req.url ?? '', apiPath,
      headers: req.headers, body, model, userText, clientClosed: false, stream,
    };
    requestCount++;
    if (record) requests.push(recorded);
    let resetByFake = false;
    res.on('close', () => {
      if (res.writableFinished || resetByFake) return;
      recorded.clientClosed = true;
      changes.emit('change');
    });
    changes.emit('change');

    if (!api || req.method !== 'POST') {
      send(res, { status: 404, body: { error: { message: `no route for ${req.method} ${apiPath}` } } });
      return;
    }
    const behaviour = queue.shift() ?? modeFromModel(model) ?? defaultBehaviour;
    const key = presentedKey(api, req, url);
    if (behaviour.mode === 'hang') return;
    if (behaviour.mode === 'reset') {
      resetByFake = true;
      req.socket.destroy();
      return;
    }
    const delay = latencyMs + (behaviour.mode === 'slow' ? (behaviour.delayMs ?? 1000) : 0);
    if (delay > 0) {
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), delay);
        res.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (aborted) return;
    }
    if (key === undefined || ERROR_KINDS.includes(behaviour.mode)) {
      const kind = (key === undefined ? 'rejectKey' : behaviour.mode) as ErrorKind;
      send(res, errorAnswer(provider, kind, {
        key: key ?? '',
        message: behaviour.message,
        retryAfterSeconds: behaviour.retryAfterSeconds ?? 1,
        retryAfterHeader: behaviour.retryAfterHeader ?? 'seconds',
      }));
      return;
    }
    if (api === 'anthropic-messages' && req.headers['anthropic-version'] === undefined) {
      send(res, errorAnswer(provider, 'badRequest', { key, message: 'anthropic-version: header is required', retryAfterSeconds: 1, retryAfterHeader: 'none' }));
      return;
    }
    const problem = conversationProblem(api, body);
    if (problem !== undefined) {
      send(res, errorAnswer(provider, 'badRequest', { key, message: problem, retryAfterSeconds: 1, retryAfterHeader: 'none' }));
      return;
    }
    if (stream && ['ok', 'slow', 'streamError', 'streamCut', 'streamStall'].includes(behaviour.mode)) {
      await streamAnswer(res, api, provider, model, userText, behaviour, body);
      return;
    }
    switch (behaviour.mode) {
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('upstream connect error or disconnect/reset before headers. reset reason: overflow');
        return;
      case 'malformed':
        send(res, { status: 200, body: { id: 'x', object: 'unexpected', output: 'none', choices: 'none', content: 'none', candidates: 'none' } });
        return;
      case 'stallBody':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":"');
        return;
      default: {
        const structured = structuredRequestOf(api, body);
        if (structured) {
          const attributes = ratedAttributesOf(structured.schema);
          const value = typeof behaviour.structured === 'function' ? (behaviour.structured as (names: string[]) => unknown)(attributes) : (behaviour.structured ?? fakeRatings(attributes));
          send(res, { status: 200, body: structuredSuccessBody(api, model, userText, value, structured.toolName) });
          return;
        }
        const text = replyText(behaviour, userText);
        const answer = successBody(api, model, userText, text, { omitUsage: behaviour.omitUsage }) as Record<string, unknown>;
        send(res, { status: 200, body: withToolCalls(api, answer, text, behaviour) });
      }
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    baseUrl: (id) => `${url}/${id}${publicBasePath[id] ?? '/v1'}`,
    requests,
    get requestCount() {
      return requestCount;
    },
    setBehaviour: (behaviour) => {
      defaultBehaviour = asBehaviour(behaviour);
    },
    enqueue: (...behaviours) => queue.push(...behaviours.map(asBehaviour)),
    setLatency: (ms) => {
      latencyMs = ms;
    },
    waitForRequests: (count) => until(() => (requests.length >= count ? requests.slice(0, count) : undefined)),
    waitForClientClose: (request) => until(() => (request.clientClosed ? true : undefined)).then(() => undefined),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
      requestCount = 0;
      defaultBehaviour = { mode: 'ok' };
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
