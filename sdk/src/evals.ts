/**
 * Evaluation runs: /v1/personas/{id}/evals. A run refines every sample of a persona with one
 * version, scores each answer and checks what it expects; labels' policies then admit a move only
 * with a good enough run of the target version (docs/evaluations.md on the server).
 */
import { PersonaRefineError } from './errors.js';
import { DEFAULT_MAX_EVENT_BYTES, EventStreamParser } from './event-stream-parser.js';
import { checkProviderKeys } from './key-check.js';
import { nextCursorOf, searchOf } from './next-page.js';
import { personaPath } from './persona-paths.js';
import type { CallOptions, Transport } from './transport.js';
import type { EvalComparison, EvalEvent, EvalRun, EvalRunWithResults, StartEvalInput } from './types.js';

export interface EvalListQuery {
  /** Page size, 1–1000; default 100. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface EvalPage {
  /** Newest first, without results. */
  runs: EvalRun[];
  /** Pass as `cursor` for the next (older) page; undefined on the last page. */
  nextCursor: string | undefined;
}

const evalsPath = (id: string) => `${personaPath(id)}/evals`;
const evalPath = (id: string, evalId: string) => `${evalsPath(id)}/${encodeURIComponent(evalId)}`;
const EVENTS: ReadonlySet<string> = new Set(['result', 'progress', 'done', 'error']);

export class Evaluations {
  constructor(private readonly transport: Transport) {}

  /**
   * Starts a run (202) and returns it queued; follow it with `events` or `get`. Never retried:
   * the service does not replay this POST, so a retry after a lost answer would start a second run.
   * The provider and judge keys are held by the service for the run only.
   */
  async start(personaId: string, input: StartEvalInput, options: CallOptions = {}): Promise<EvalRun> {
    checkProviderKeys(input);
    if (typeof input.judge === 'object') checkProviderKeys(input.judge);
    const request = { method: 'POST' as const, path: evalsPath(personaId), body: input };
    return (await this.transport.call<EvalRun>(request, { ...options, maxRetries: 0 })).body;
  }

  /** The run with its results, in sample order. */
  async get(personaId: string, evalId: string, options?: CallOptions): Promise<EvalRunWithResults> {
    return (await this.transport.call<EvalRunWithResults>({ method: 'GET', path: evalPath(personaId, evalId) }, options)).body;
  }

  async list(personaId: string, query: EvalListQuery = {}, options?: CallOptions): Promise<EvalPage> {
    const path = `${evalsPath(personaId)}${searchOf({ ...query })}`;
    const { body, headers } = await this.transport.call<EvalRun[]>({ method: 'GET', path, answer: 'array' }, options);
    return { runs: body, nextCursor: nextCursorOf(headers) };
  }

  /** Stops the run; what finished is kept. A run that already ended is a 409. Not retried, for the same reason. */
  async cancel(personaId: string, evalId: string, options: CallOptions = {}): Promise<EvalRun> {
    return (await this.transport.call<EvalRun>({ method: 'POST', path: `${evalPath(personaId, evalId)}/cancel` }, { ...options, maxRetries: 0 })).body;
  }

  /** Sample by sample, `head` against `base`; `regressions`: a score fallen by 10 or more, or passed in base and not in head. */
  async compare(personaId: string, base: string, head: string, options?: CallOptions): Promise<EvalComparison> {
    const search = new URLSearchParams({ base, head });
    return (await this.transport.call<EvalComparison>({ method: 'GET', path: `${evalsPath(personaId)}/compare?${search}` }, options)).body;
  }

  /**
   * The run's events as they happen, after everything that happened before connecting: iterate
   * with `for await` until the last event, `done` or `error`. `timeoutMs` bounds the whole
   * stream (the client's default is 2 minutes: pass more for a long run); leaving the loop
   * closes the connection. A stream cut before its last event throws `kind: 'network'`;
   * connecting again replays the run from its start.
   */
  async *events(personaId: string, evalId: string, options: CallOptions = {}): AsyncGenerator<EvalEvent, void, undefined> {
    const request = { method: 'GET' as const, path: `${evalPath(personaId, evalId)}/events`, headers: { accept: 'text/event-stream' } };
    const { opened: response, scope } = await this.transport.open(request, options, async (answer) => answer);
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const failure = (kind: 'http' | 'network', message: string, cause?: unknown) =>
      new PersonaRefineError({ kind, status: kind === 'http' ? response.status : 0, message, requestId, cause });
    const reader = response.body?.getReader();
    try {
      if (!/^text\/event-stream/.test(response.headers.get('content-type') ?? '') || !reader) throw failure('http', `HTTP ${response.status} answer is not an event stream`);
      const parser = new EventStreamParser(Math.min(this.transport.maxAnswerBytes, DEFAULT_MAX_EVENT_BYTES));
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (cause) {
          if (scope.signal.aborted) throw scope.abortError();
          throw failure('network', `the event stream from persona-refine was cut: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
        }
        for (const event of chunk.done ? parser.end() : parser.push(chunk.value)) {
          if (!EVENTS.has(event.event)) continue;
          let data: unknown;
          try {
            data = JSON.parse(event.data);
          } catch (cause) {
            throw failure('http', `the run's ${event.event} event is not valid JSON`, cause);
          }
          if (typeof data !== 'object' || data === null || Array.isArray(data)) throw failure('http', `the run's ${event.event} event is not a JSON object`);
          yield { event: event.event, data } as EvalEvent;
          if (event.event === 'done' || event.event === 'error') return;
        }
        if (chunk.done) throw failure('network', 'the event stream from persona-refine was cut: it ended before the run did');
      }
    } finally {
      await reader?.cancel().catch(() => undefined);
      scope.close();
    }
  }
}
