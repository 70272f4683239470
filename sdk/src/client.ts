/** The entry point: `new PersonaRefine({ apiKey, baseUrl })`. */
import { DEFAULT_MAX_ANSWER_BYTES } from './answer.js';
import { Audit } from './audit.js';
import { type ChatResult, chatRequest, chatResult } from './chat.js';
import { ChatStream } from './chat-stream.js';
import type { ChatInput, ChatStreamInput } from './chat-types.js';
import { PersonaRefineError } from './errors.js';
import { checkApiKey, checkProviderKeys } from './key-check.js';
import { Evaluations } from './evals.js';
import { FeedbackApi } from './feedback.js';
import { searchOf } from './next-page.js';
import { personaPath } from './persona-paths.js';
import { Personas } from './personas.js';
import { refineResult } from './refine-result.js';
import { Retention, Reviews } from './review-queue.js';
import { Usage } from './usage.js';
import { Keys } from './keys.js';
import { Webhooks } from './webhooks.js';
import { RefineStream, type RefineStreamInput } from './refine-stream.js';
import { type CallOptions, type PostOptions, type RetryEvent, Transport } from './transport.js';
import type { CheckInput, CheckResult, Provider, QualityQuery, QualityRow, RefineInput, RefineResult } from './types.js';

export interface PersonaRefineOptions {
  /** Your persona-refine API key (`prk_…`). */
  apiKey: string;
  /** The server root, e.g. `http://127.0.0.1:8080`; a trailing `/v1` is accepted and ignored. */
  baseUrl: string;
  /** Overall limit for one call, retries and waits included. Default 120 000 ms: a refine alone may take a minute. */
  timeoutMs?: number;
  /** Retries after the first attempt for 429, 502, 503, 504 and network errors (409 with an Idempotency-Key). Default 2; 0 turns retrying off. */
  maxRetries?: number;
  /** A fetch implementation; defaults to the global one. */
  fetch?: typeof fetch;
  /** Called before each retry. */
  onRetry?: (event: RetryEvent) => void;
  /** The most a JSON answer may weigh, in bytes; past it the call throws AnswerTooLargeError. Default 64 MiB. */
  maxAnswerBytes?: number;
}

export interface RefineOptions extends PostOptions {
  /**
   * Opt in to the service's answer cache: `{ maxAge: 3600 }` accepts an answer stored at most that
   * many seconds ago (and stores a fresh one), `'no-cache'` forces a fresh answer and stores it,
   * `'no-store'` neither reads nor stores. Without it the cache is not involved.
   */
  cache?: { maxAge: number } | 'no-cache' | 'no-store';
}

const cacheControl = (cache: NonNullable<RefineOptions['cache']>) => (typeof cache === 'string' ? cache : `max-age=${cache.maxAge}`);

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 2;

/** `http://host/` and `http://host/v1` both mean the server at `http://host`. */
function apiUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;
}

export class PersonaRefine {
  readonly personas: Personas;
  /** Who changed what, newest first. */
  readonly audit: Audit;
  readonly usage: Usage;
  /** The account's API keys (scope `keys:admin`; `keys.current()` for any key). */
  readonly keys: Keys;
  /** Evaluation runs of a persona version on the persona's samples: start, follow, compare. */
  readonly evals: Evaluations;
  /** Ratings of live answers, by their request id: create, list. */
  readonly feedback: FeedbackApi;
  /** Which answers each persona keeps for review, and for how long: get, set. */
  readonly retention: Retention;
  /** The answers kept for review: list, resolve (optionally into an evaluation sample). */
  readonly reviews: Reviews;
  /** Endpoints that receive signed events (scope `webhooks:admin`): create, list, test, rotate their secret, read their deliveries. */
  readonly webhooks: Webhooks;
  private readonly transport: Transport;

  constructor(options: PersonaRefineOptions) {
    if (!options.apiKey) throw new TypeError('PersonaRefine: apiKey is required');
    checkApiKey(options.apiKey);
    if (!/^https?:\/\//.test(options.baseUrl ?? '')) {
      throw new TypeError(`PersonaRefine: baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    // Bound late, not `globalThis.fetch` itself: some runtimes throw "Illegal invocation" on a detached fetch.
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.transport = new Transport({
      apiKey: options.apiKey,
      apiUrl: apiUrlOf(options.baseUrl),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      fetch: fetchImpl,
      onRetry: options.onRetry,
      maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    });
    this.personas = new Personas(this.transport);
    this.audit = new Audit(this.transport);
    this.usage = new Usage(this.transport);
    this.keys = new Keys(this.transport);
    this.evals = new Evaluations(this.transport);
    this.feedback = new FeedbackApi(this.transport);
    this.retention = new Retention(this.transport);
    this.reviews = new Reviews(this.transport);
    this.webhooks = new Webhooks(this.transport);
  }

  /**
   * Rewrites `content` in the persona's voice through `provider`, paid with `providerApiKey`
   * (then through `fallbacks`, if it fails in a way that may pass).
   */
  async refine(input: RefineInput, options: RefineOptions = {}): Promise<RefineResult> {
    checkProviderKeys(input);
    const { cache, ...postOptions } = options;
    const headers = cache === undefined ? undefined : { 'cache-control': cacheControl(cache) };
    const answer = await this.transport.call<{ response: unknown }>({ method: 'POST', path: '/refine', body: input, headers }, postOptions);
    if (typeof answer.body.response !== 'string') {
      throw new PersonaRefineError({ kind: 'http', status: 200, message: 'HTTP 200 answer has no "response" text', requestId: answer.headers.get('x-request-id') ?? undefined });
    }
    return refineResult(answer.body as { response: string }, answer.headers);
  }

  /**
   * `refine`, streamed: iterate it with `for await` for the text as it is generated, then read
   * `await stream.result` for the final result. Nothing is sent until the loop starts; leaving the
   * loop early (or aborting `signal`) closes the connection, which stops the provider. Retried like
   * `refine` (same Idempotency-Key) until the first piece arrives, never after; `timeoutMs` bounds
   * the whole stream.
   */
  refineStream(input: RefineStreamInput, options?: PostOptions): RefineStream {
    checkProviderKeys(input);
    return new RefineStream(this.transport, input, options);
  }

  /**
   * A completion in the persona's voice, in one provider call when the answer keeps the persona's
   * rules: POST /v1/chat/completions with `model` as `provider/model`, the persona's instructions
   * before your messages, then its rules on the final text. Answers OpenAI's Chat Completions body,
   * with the persona headers (`personaVersion`, `personaVariant`, `score`, `violations`, `rules`, `providerCalls`,
   * `provider`, `requestId`) not enumerable.
   */
  async chat(input: ChatInput, options?: PostOptions): Promise<ChatResult> {
    const answer = await this.transport.call<unknown>(chatRequest(input, false), options);
    return chatResult(answer.body, answer.headers);
  }

  /**
   * `chat`, streamed: `for await` gives OpenAI's chunks as they come, `await stream.result` the
   * completion they add up to. Nothing is sent until the loop starts; leaving it early (or
   * aborting `signal`) closes the connection, which stops the provider. Retried like `chat` until
   * the first chunk that shows something, never after.
   */
  chatStream(input: ChatStreamInput, options?: PostOptions): ChatStream {
    return new ChatStream(this.transport, input, options);
  }

  /** The providers this instance can call, operator-declared ones and `rules` included, and whether each needs a key. */
  async providers(options?: CallOptions): Promise<Provider[]> {
    return (await this.transport.call<Provider[]>({ method: 'GET', path: '/providers', answer: 'array' }, options)).body;
  }

  /**
   * Scores `content` against the persona: `score` 0–100 and its parts `scores` (docs/voice-score.md),
   * every rule finding with its `severity`, and `passed` (no required finding, and at least the
   * persona's `minScore`). Without a provider; changes nothing. `personaVersion` or
   * `personaLabel` pins the version. With `original` (what `content` was rewritten from, by
   * anything), also reports each number, URL, e-mail address, code span or block and template
   * placeholder of `original` that `content` lost, as a `preserve` violation whose `start`/`end`
   * point into `original`.
   */
  async check(input: CheckInput, options?: CallOptions): Promise<CheckResult> {
    const { body, headers } = await this.transport.call<CheckResult>({ method: 'POST', path: '/check', body: input }, options);
    return withPersonaVersion(body, headers);
  }

  /**
   * The persona's quality on live traffic (scope `usage:read`): its answers to refines, chat
   * completions and checks, their mean score, those under `minScore` or with a required finding
   * left, findings by rule, and the feedback on them. By UTC day (default; oldest first, days
   * without answers absent) or `groupBy: 'version'`; `from` and `to` are `YYYY-MM-DD`, default the
   * last 30 days.
   */
  async quality(personaId: string, query: QualityQuery = {}, options?: CallOptions): Promise<QualityRow[]> {
    const path = `${personaPath(personaId)}/quality${searchOf({ from: query.from, to: query.to, groupBy: query.groupBy })}`;
    return (await this.transport.call<{ rows: QualityRow[] }>({ method: 'GET', path }, options)).body.rows;
  }
}

/** `X-Persona-Version` and `X-Persona-Variant` as a non-enumerable `personaVersion` and `personaVariant`, so the body still serializes as sent. */
function withPersonaVersion<T extends object>(body: T, headers: Headers): T {
  return Object.defineProperties(body, {
    personaVersion: { value: Number(headers.get('x-persona-version')), enumerable: false },
    personaVariant: { value: headers.get('x-persona-variant') ?? undefined, enumerable: false },
  });
}
