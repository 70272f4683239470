/**
 * Idempotency-Key on POST routes (docs/storage-and-reliability.md, "Idempotency"). The first request with a key
 * runs and its answer is stored; a retry with the same key and body gets that
 * answer back (with `Idempotent-Replayed: true`) without running again; the
 * same key with another body is a 422. A retry arriving while the first is
 * still running waits for it, up to `waitMs`, then gets a 409.
 *
 * Scopes are checked before a replay is served: an answer that depended on a scope beyond its
 * route's (a protected label moved or removed; see `scopeRight`) is replayed only to a key that
 * has it, and a key without it gets the 403 the request itself would have got.
 *
 * Only answers that settle the request are kept: 2xx and 4xx. A 5xx or 429 is
 * not stored, so the retry the client is told to make actually runs; nor is a 499
 * (the client went away before its answer was ready), so its retry runs too.
 */
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onResponseHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { hasScope, type Scope } from '../accounts/scopes.js';
import { DomainError, errorStatus, lacksScope } from '../errors.js';
import type { IdempotencyRepository, IdempotencyRow, IdempotencyScope } from '../storage/idempotency-repository.js';
import type { ServiceSecret } from '../storage/secret-repository.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** What a replay repeats of an answer: what describes it, not how this one delivery went (X-Cache, Age, Server-Timing). */
const REPLAYED_HEADERS = [
  'content-type', 'location', 'etag', 'last-modified', 'x-error-source', 'x-persona-violations', 'x-persona-version', 'x-persona-variant', 'x-persona-score',
  'x-persona-ratings', 'x-persona-judge-error', 'x-persona-judge-warning', 'x-persona-rules', 'x-usage', 'x-provider', 'retry-after',
];

/** Of an answer's headers (any case), those a replay repeats. */
function replayedHeaders(header: (name: string) => unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = header(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyScope: IdempotencyScope | null;
    /** A scope beyond the route's that this request's answer depended on: its replay needs it too. */
    answerNeeds: Scope | null;
  }
}

export interface IdempotencyOptions {
  store: IdempotencyRepository;
  /** How long a replay waits for the first request before answering 409. */
  waitMs: number;
  /** A running request older than this is presumed dead (its instance crashed) and its key is freed. */
  staleAfterMs: number;
  /** Keys the request hash: a refine body holds provider keys, which a plain digest would let a database reader confirm by guessing. */
  hashKey: ServiceSecret;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Compared byte for byte: a retry sends the same body (the SDK does), and nothing is re-serialized.
 * Method and URL count too: one set of hooks serves several routes (PATCH, DELETE, restore), and a
 * key reused on another persona must not replay the first one's answer.
 */
function hashRequest(request: FastifyRequest, key: Buffer, hashedHeaders: readonly string[]): string {
  const hmac = createHmac('sha256', key).update(`${request.method} ${request.url}\n`);
  for (const name of hashedHeaders) hmac.update(`${name}: ${String(request.headers[name] ?? '')}\n`);
  return hmac.update(request.rawBody ?? '').digest('hex');
}

/**
 * The request's right to a scope beyond its route's, which the domain uses only when the resource
 * asks for it (a protected label): once used, a replay of the answer needs the scope too.
 */
export function scopeRight(request: FastifyRequest, scope: Scope): { granted: boolean; used(): void } {
  return {
    granted: hasScope(request.principal.scopes, scope),
    used: () => {
      request.answerNeeds = scope;
    },
  };
}

function replay(reply: FastifyReply, row: IdempotencyRow): FastifyReply {
  const headers = JSON.parse(row.response_headers ?? '{}') as Record<string, string>;
  return reply.code(row.status!).headers(headers).header('idempotent-replayed', 'true').send(row.response_body ?? '');
}

export interface IdempotencyHooks {
  preHandler: preHandlerHookHandler;
  onSend: onSendHookHandler;
  onResponse: onResponseHookHandler;
}

/** `hashedHeaders`: request headers that change what is asked (a chat's X-Persona), so they count as the body does. */
export function idempotency(operation: string, options: IdempotencyOptions, hashedHeaders: readonly string[] = []): IdempotencyHooks {
  const { store } = options;

  const preHandler: preHandlerHookHandler = async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return;
    const scope = { account_id: request.principal.accountId, operation, key };
    const hash = hashRequest(request, await options.hashKey.get(), hashedHeaders);
    const waitUntil = Date.now() + options.waitMs;

    for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
      const now = new Date();
      if (await store.tryBegin(scope, hash, now, IDEMPOTENCY_TTL_MS)) {
        request.idempotencyScope = scope;
        return;
      }
      const row = await store.find(scope);
      if (!row) continue;
      if (row.expires_at < now.toISOString()) {
        await store.release(scope, { expiredBefore: now.toISOString() });
        continue;
      }
      if (row.request_hash !== hash) {
        throw new DomainError(
          'idempotency_mismatch',
          hashedHeaders.length === 0
            ? 'this Idempotency-Key was already used with a different request body; use a new key for a new request'
            : `this Idempotency-Key was already used with a different request body or ${hashedHeaders.join(', ')} header; use a new key for a new request`,
        );
      }
      if (row.status !== null) {
        const needs = row.required_scope as Scope | null;
        if (needs !== null && !hasScope(request.principal.scopes, needs)) throw lacksScope(needs);
        return replay(reply, row);
      }
      const staleBefore = new Date(now.getTime() - options.staleAfterMs).toISOString();
      if (row.created_at < staleBefore) {
        await store.release(scope, { staleBefore });
        continue;
      }
      if (Date.now() + pause > waitUntil) {
        throw new DomainError('conflict', 'a request with this Idempotency-Key is still in progress; retry shortly', {
          headers: { 'retry-after': '1' },
        });
      }
      await sleep(pause);
    }
  };

  // Stored before the answer leaves, so a client that saw it and retries finds it.
  const onSend: onSendHookHandler = async (request, reply, payload) => {
    const scope = request.idempotencyScope;
    if (!scope) return payload;
    request.idempotencyScope = null;
    const status = reply.statusCode;
    if (status >= 500 || status === 429 || status === errorStatus.client_closed_request) {
      await store.release(scope);
      return payload;
    }
    const headers = replayedHeaders((name) => reply.getHeader(name));
    await store.complete(scope, { status, headers, body: typeof payload === 'string' ? payload : '', requiredScope: request.answerNeeds });
    return payload;
  };

  // The answer never went out (client gone, send failed): free the key for the retry.
  const onResponse: onResponseHookHandler = async (request) => {
    const scope = request.idempotencyScope;
    if (!scope) return;
    request.idempotencyScope = null;
    await store.release(scope);
  };

  return { preHandler, onSend, onResponse };
}

/** What a streamed answer stores for replay, or frees, once it has ended. */
export interface IdempotencySettlement {
  /** `headers` are the answer's, lower-case, as a non-streamed one would carry them: the replay keeps what a replay keeps. */
  complete(answer: { status: number; headers: Record<string, string>; body: string }): Promise<void>;
  release(): Promise<void>;
}

/**
 * For an answer whose end comes long after onSend (a stream): takes the request's key
 * out of the hooks' hands, for the route to settle when the answer has ended.
 * Undefined when the request has no key (or it was replayed).
 */
export function idempotencyDeferral(store: IdempotencyRepository) {
  return (request: FastifyRequest): IdempotencySettlement | undefined => {
    const scope = request.idempotencyScope;
    if (!scope) return undefined;
    request.idempotencyScope = null;
    return {
      complete: ({ status, headers, body }) => store.complete(scope, { status, headers: replayedHeaders((name) => headers[name]), body }),
      release: () => store.release(scope),
    };
  };
}
