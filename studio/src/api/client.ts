/**
 * The studio's only way out: the public /v1 API of the service that serves it, with the
 * signed-in API key. Nothing here stores anything; the provider key passes through `refine`.
 */
import { EventStreamParser, type ServerSentEvent } from '../../../sdk/src/event-stream-parser.js';
import { ApiError, errorFromResponse, unreachable } from './api-error.js';
import { DraftingApi } from './drafting.js';
import { chatBody, chatHeaders, type GenerateOutcome, type GenerateRequest, readCompletion, readCompletionStream } from './chat.js';
import type { Provider } from './providers.js';
import { parseServerTiming, type RefineTiming } from './server-timing.js';
import { parseUsage, type RefineUsage } from './usage.js';
import { WebhooksApi } from './webhooks.js';
import type {
  ApiKey,
  CheckRequest,
  CheckVerdict,
  CreateKeyInput,
  CurrentKey,
  EvalComparison,
  EvalResult,
  EvalRun,
  EvalRunWithResults,
  EvalSample,
  EvalSampleInput,
  IssuedApiKey,
  LabelPolicy,
  LabelPolicyInput,
  Persona,
  PersonaDraft,
  PersonaLabels,
  PersonaVersion,
  QualityQuery,
  QualityRow,
  ResolveReviewInput,
  RetentionPolicy,
  Review,
  StartEvalInput,
} from './types.js';

/** A persona as last read or written, with the ETag that a save sends back as If-Match. */
export interface VersionedPersona {
  persona: Persona;
  etag: string | undefined;
}

/** The persona's samples, with the ETag (the set's own) a save sends back as If-Match. */
export interface VersionedSamples {
  samples: EvalSample[];
  etag: string | undefined;
}

/** What a run's event stream reports, one event at a time; the run's end is `done` (with its status). */
export type EvalUpdate = { result: EvalResult } | { progress: { done: number; total: number } } | { done: { status: EvalRun['status']; message?: string } };

export interface RefineRequest {
  provider: string;
  /** Absent only for providers that need no key. */
  providerApiKey?: string;
  personaId: string;
  /** Refine with this version instead of the newest. */
  personaVersion?: number;
  content: string;
  model?: string;
  /** One of the persona's `variants`, merged over its attributes. */
  variant?: string;
}

export interface RefineOutcome {
  response: string;
  timing: RefineTiming | undefined;
  /** `X-Provider`: who answered, e.g. `anthropic/claude-haiku-4-5` (a fallback, if one did). */
  answeredBy: string | undefined;
  /** `X-Usage`, e.g. `input_tokens=412, output_tokens=37, provider_calls=1`, parsed. */
  usage: RefineUsage;
  /** `X-Cache` (HIT or MISS) when the request involved the answer cache. */
  cache: string | undefined;
  /** `X-Persona-Variant`: the persona's variant the answer used, when the request named one. */
  variant: string | undefined;
  /** As the browser measured it, network included. */
  roundTripMs: number;
}

export interface CheckAnswer {
  verdict: CheckVerdict;
  /** A judged check's `X-Usage`: what the judge cost; undefined when not judged. */
  usage: RefineUsage | undefined;
}

interface SendOptions {
  body?: unknown;
  ifMatch?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export class StudioApi {
  constructor(
    private readonly apiKey: string,
    /** Called on any 401: the key was revoked or is wrong, so the session is over. */
    private readonly onUnauthorized: () => void = () => {},
  ) {}

  /** The account's webhook endpoints and their deliveries (api/webhooks.ts). */
  readonly webhooks = new WebhooksApi((method, path, options) => this.send(method, path, options));
  /** Personas drafted from sample texts (api/drafting.ts). */
  readonly drafting = new DraftingApi((method, path, options) => this.send(method, path, options));

  async listPersonas(): Promise<Persona[]> {
    return (await this.send('GET', '/personas')).json() as Promise<Persona[]>;
  }

  async getPersona(id: string): Promise<VersionedPersona> {
    return versioned(await this.send('GET', personaPath(id)));
  }

  async createPersona(draft: PersonaDraft): Promise<VersionedPersona> {
    return versioned(await this.send('POST', '/personas', { body: draft }));
  }

  /** Replaces name and attributes; with an ETag, a 412 ApiError if someone else saved first. */
  async updatePersona(id: string, draft: PersonaDraft, etag?: string): Promise<VersionedPersona> {
    return versioned(await this.send('PATCH', personaPath(id), { body: draft, ifMatch: etag }));
  }

  async deletePersona(id: string, etag?: string): Promise<void> {
    await this.send('DELETE', personaPath(id), { ifMatch: etag });
  }

  /** Oldest first. */
  async listVersions(id: string): Promise<PersonaVersion[]> {
    return (await this.send('GET', `${personaPath(id)}/versions`)).json() as Promise<PersonaVersion[]>;
  }

  /** That version's content becomes the newest version; a 412 ApiError if the persona changed since `etag`. */
  async restoreVersion(id: string, version: number, etag?: string): Promise<VersionedPersona> {
    return versioned(await this.send('POST', `${personaPath(id)}/versions/${version}/restore`, { ifMatch: etag }));
  }

  /** Label → version. */
  async labels(id: string): Promise<PersonaLabels> {
    return (await this.send('GET', `${personaPath(id)}/labels`)).json() as Promise<PersonaLabels>;
  }

  /** A 412 ApiError if the persona changed since `etag`. */
  async setLabel(id: string, label: string, version: number, etag?: string): Promise<PersonaLabels> {
    return (await this.send('PUT', `${personaPath(id)}/labels/${encodeURIComponent(label)}`, { body: { version }, ifMatch: etag })).json() as Promise<PersonaLabels>;
  }

  /** A 412 ApiError if the persona changed since `etag`. */
  async removeLabel(id: string, label: string, etag?: string): Promise<void> {
    await this.send('DELETE', `${personaPath(id)}/labels/${encodeURIComponent(label)}`, { ifMatch: etag });
  }

  async refine(request: RefineRequest, signal?: AbortSignal): Promise<RefineOutcome> {
    const started = performance.now();
    const response = await this.send('POST', '/refine', { body: request, signal });
    const body = (await response.json()) as { response: string };
    return {
      response: body.response,
      timing: parseServerTiming(response.headers.get('server-timing')),
      answeredBy: response.headers.get('x-provider') ?? undefined,
      usage: parseUsage(response.headers.get('x-usage')),
      cache: response.headers.get('x-cache') ?? undefined,
      variant: response.headers.get('x-persona-variant') ?? undefined,
      roundTripMs: performance.now() - started,
    };
  }

  /**
   * The refine as a stream: `onText` gets the text so far after each piece. A stream makes no
   * repair call, and its answer carries no timing or usage headers (they are not known when it
   * starts): the outcome has the provider's tokens from the `done` event and the round trip only.
   */
  async refineStream(request: RefineRequest, signal: AbortSignal, onText: (text: string) => void): Promise<RefineOutcome> {
    const started = performance.now();
    const response = await this.send('POST', '/refine', { body: { ...request, stream: true }, signal });
    const reader = response.body!.getReader();
    const parser = new EventStreamParser();
    let text = '';
    const handle = (event: ServerSentEvent): RefineOutcome | undefined => {
      // Only the events the studio knows are read; any other is skipped, as the SDK does.
      if (event.event === 'delta') onText((text += eventData(event, 'text').text as string));
      if (event.event === 'error') throw streamError(eventData(event, ''));
      if (event.event !== 'done') return undefined;
      const data = eventData(event, 'response');
      const usage = typeof data.usage === 'object' && data.usage !== null && !Array.isArray(data.usage) ? (data.usage as RefineUsage) : {};
      const variant = response.headers.get('x-persona-variant') ?? undefined;
      return { response: data.response as string, timing: undefined, answeredBy: undefined, usage, cache: undefined, variant, roundTripMs: performance.now() - started };
    };
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal.aborted) throw error;
        throw unreachable();
      }
      for (const event of parseChunk(parser, chunk, reader)) {
        const outcome = handle(event);
        if (outcome) return outcome;
      }
      if (chunk.done) throw new ApiError(502, 'the stream ended before its result', 'service');
    }
  }

  /**
   * An answer to `prompt` generated in the persona's voice (POST /v1/chat/completions): the
   * persona's instructions go first, its rules apply to the answer. With `onText`, streamed: it
   * gets the text so far after each piece.
   */
  async generate(request: GenerateRequest, signal?: AbortSignal, onText?: (text: string) => void): Promise<GenerateOutcome> {
    const started = performance.now();
    const streamed = onText !== undefined;
    const response = await this.send('POST', '/chat/completions', { body: chatBody(request, streamed), headers: chatHeaders(request), signal });
    return streamed ? readCompletionStream(response, started, signal, onText) : readCompletion(response, started);
  }

  /**
   * The persona's rules checked against `content` (and, with `original`, what it lost of it); no
   * provider unless `judge` is given, whose calls `usage` (`X-Usage`) counts.
   */
  async check(request: CheckRequest): Promise<CheckAnswer> {
    const response = await this.send('POST', '/check', { body: request });
    const usage = response.headers.get('x-usage');
    return { verdict: (await response.json()) as CheckVerdict, usage: usage === null ? undefined : parseUsage(usage) };
  }

  /** The signed-in key: its id, scopes and limits (any key may ask). */
  async currentKey(): Promise<CurrentKey> {
    return (await this.send('GET', '/keys/current')).json() as Promise<CurrentKey>;
  }

  /** The account's keys (scope keys:admin); never a secret. */
  async listKeys(): Promise<ApiKey[]> {
    return (await this.send('GET', '/keys')).json() as Promise<ApiKey[]>;
  }

  /** A new key; its `secret` is in this answer only. */
  async createKey(input: CreateKeyInput): Promise<IssuedApiKey> {
    return (await this.send('POST', '/keys', { body: input })).json() as Promise<IssuedApiKey>;
  }

  async revokeKey(id: string): Promise<void> {
    await this.send('DELETE', `/keys/${encodeURIComponent(id)}`);
  }

  /** A new secret (in this answer only); the old one keeps working for `graceSeconds`. */
  async rotateKey(id: string, graceSeconds: number): Promise<IssuedApiKey> {
    return (await this.send('POST', `/keys/${encodeURIComponent(id)}/rotate`, { body: { graceSeconds } })).json() as Promise<IssuedApiKey>;
  }

  async samples(id: string): Promise<VersionedSamples> {
    const response = await this.send('GET', `${personaPath(id)}/samples`);
    return { samples: ((await response.json()) as { samples: EvalSample[] }).samples, etag: response.headers.get('etag') ?? undefined };
  }

  /** Replaces the whole set; a 412 ApiError if it changed since `etag`. */
  async replaceSamples(id: string, samples: EvalSampleInput[], etag?: string): Promise<VersionedSamples> {
    const response = await this.send('PUT', `${personaPath(id)}/samples`, { body: { samples }, ifMatch: etag });
    return { samples: ((await response.json()) as { samples: EvalSample[] }).samples, etag: response.headers.get('etag') ?? undefined };
  }

  /** Starts a run (the provider and judge keys leave the page only here); answers it queued. */
  async startEval(id: string, input: StartEvalInput): Promise<EvalRun> {
    return (await this.send('POST', `${personaPath(id)}/evals`, { body: input })).json() as Promise<EvalRun>;
  }

  /** The newest runs first (one page), without results. */
  async listEvals(id: string): Promise<EvalRun[]> {
    return (await this.send('GET', `${personaPath(id)}/evals`)).json() as Promise<EvalRun[]>;
  }

  async getEval(id: string, evalId: string): Promise<EvalRunWithResults> {
    return (await this.send('GET', `${personaPath(id)}/evals/${encodeURIComponent(evalId)}`)).json() as Promise<EvalRunWithResults>;
  }

  async cancelEval(id: string, evalId: string): Promise<EvalRun> {
    return (await this.send('POST', `${personaPath(id)}/evals/${encodeURIComponent(evalId)}/cancel`)).json() as Promise<EvalRun>;
  }

  async compareEvals(id: string, base: string, head: string): Promise<EvalComparison> {
    return (await this.send('GET', `${personaPath(id)}/evals/compare?${new URLSearchParams({ base, head })}`)).json() as Promise<EvalComparison>;
  }

  /**
   * Follows a run: `onUpdate` gets what happened so far, then each result and progress as it
   * happens, and last its end; resolves then. Aborting `signal` closes the stream.
   */
  async followEval(id: string, evalId: string, signal: AbortSignal, onUpdate: (update: EvalUpdate) => void): Promise<void> {
    const response = await this.send('GET', `${personaPath(id)}/evals/${encodeURIComponent(evalId)}/events`, { signal });
    const reader = response.body!.getReader();
    const parser = new EventStreamParser();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal.aborted) throw error;
        throw unreachable();
      }
      for (const event of parseChunk(parser, chunk, reader)) {
        if (event.event === 'result') onUpdate({ result: eventData(event, 'sampleId') as EvalResult });
        if (event.event === 'progress') onUpdate({ progress: eventData(event, '') as { done: number; total: number } });
        if (event.event === 'done' || event.event === 'error') {
          const data = eventData(event, 'status');
          onUpdate({ done: { status: data.status as EvalRun['status'], ...(typeof data.message === 'string' ? { message: data.message } : {}) } });
          return;
        }
      }
      if (chunk.done) throw new ApiError(502, 'the run’s event stream ended before the run did', 'service');
    }
  }

  /** Sets a label's policy (labels:protected): protection and the evaluation a move needs. */
  async setLabelPolicy(id: string, label: string, policy: LabelPolicyInput): Promise<LabelPolicy> {
    return (await this.send('PUT', `${personaPath(id)}/labels/${encodeURIComponent(label)}/policy`, { body: policy })).json() as Promise<LabelPolicy>;
  }

  /** The persona's quality on live traffic (scope usage:read); by day, oldest first, unless grouped by version. */
  async quality(id: string, query: QualityQuery = {}): Promise<QualityRow[]> {
    const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
    const response = await this.send('GET', `${personaPath(id)}/quality${search.size ? `?${search}` : ''}`);
    return ((await response.json()) as { rows: QualityRow[] }).rows;
  }

  async retention(id: string): Promise<RetentionPolicy> {
    return (await this.send('GET', `${personaPath(id)}/retention`)).json() as Promise<RetentionPolicy>;
  }

  async setRetention(id: string, policy: RetentionPolicy): Promise<RetentionPolicy> {
    return (await this.send('PUT', `${personaPath(id)}/retention`, { body: policy })).json() as Promise<RetentionPolicy>;
  }

  /** The open reviews, newest first: the first page, which holds up to 100. */
  async reviews(id: string): Promise<Review[]> {
    return (await this.send('GET', `${personaPath(id)}/reviews`)).json() as Promise<Review[]>;
  }

  /** A 409 ApiError if it was resolved already. */
  async resolveReview(id: string, requestId: string, input: ResolveReviewInput): Promise<Review> {
    return (await this.send('POST', `${personaPath(id)}/reviews/${encodeURIComponent(requestId)}/resolve`, { body: input })).json() as Promise<Review>;
  }

  /** Label → policy: of every label set, every label with a policy, and production. */
  async labelPolicies(id: string): Promise<Record<string, LabelPolicy>> {
    return (await this.send('GET', `${personaPath(id)}/label-policies`)).json() as Promise<Record<string, LabelPolicy>>;
  }

  /** Whether moving the label needs labels:protected (its policy; `production` by default). */
  async labelPolicy(id: string, label: string): Promise<LabelPolicy> {
    return (await this.send('GET', `${personaPath(id)}/labels/${encodeURIComponent(label)}/policy`)).json() as Promise<LabelPolicy>;
  }

  /** The providers this service can call, operator-declared ones and `rules` included. */
  async providers(): Promise<Provider[]> {
    return (await this.send('GET', '/providers')).json() as Promise<Provider[]>;
  }

  private async send(method: string, path: string, options: SendOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers, authorization: `Bearer ${this.apiKey}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
    let response: Response;
    try {
      response = await fetch(`/v1${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
        cache: 'no-store',
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw unreachable();
    }
    if (response.ok) return response;
    const error = await errorFromResponse(response);
    // A provider refusing its key is a 401 on the OpenAI-compatible route: the session still stands.
    if (error.status === 401 && error.source !== 'provider') this.onUnauthorized();
    throw error;
  }
}

/**
 * The SDK's parser bounds a line and an event (16 MiB) so an endless one cannot fill the tab's
 * memory; past that it throws, and the stream is closed and reported like any failed answer.
 */
function parseChunk(parser: EventStreamParser, chunk: ReadableStreamReadResult<Uint8Array>, reader: ReadableStreamDefaultReader<Uint8Array>): ServerSentEvent[] {
  try {
    return chunk.done ? parser.end() : parser.push(chunk.value);
  } catch (error) {
    void reader.cancel().catch(() => undefined);
    throw new ApiError(502, (error as Error).message, 'service');
  }
}

/**
 * An event's JSON object, with `required` (unless '') a string; anything else is the service's
 * failure, shown like one (as the SDK's parseData checks it).
 */
function eventData(event: ServerSentEvent, required: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    data = undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ApiError(502, `the stream's ${event.event} event is not a JSON object`, 'service');
  const object = data as Record<string, unknown>;
  if (required !== '' && typeof object[required] !== 'string') throw new ApiError(502, `the stream's ${event.event} event has no "${required}" text`, 'service');
  return object;
}

/** The `error` event carries the status and message the same failure gets without streaming. */
function streamError(data: Record<string, unknown>): ApiError {
  const message = typeof data.message === 'string' ? data.message : 'the stream failed';
  const status = typeof data.error === 'number' && Number.isInteger(data.error) && data.error >= 400 && data.error <= 599 ? data.error : 500;
  return new ApiError(status, message, message.startsWith('provider "') ? 'provider' : 'service');
}

const personaPath = (id: string) => `/personas/${encodeURIComponent(id)}`;

async function versioned(response: Response): Promise<VersionedPersona> {
  return { persona: (await response.json()) as Persona, etag: response.headers.get('etag') ?? undefined };
}
