/**
 * The providers this service can call: the built-in ones plus any OpenAI-compatible
 * endpoints the operator declared. Base URLs and default models come only from
 * operator config (ProviderOverrides); the key and an optional model come from the call.
 */
import { DomainError, invalidRequest } from '../errors.js';
import { type Attempt, type AttemptTarget, answerAttempt, connectionFailure, type Prompt, type ProviderText } from './attempt.js';
import { builtInProviders } from './built-in-providers.js';
import { openAICompatible } from './openai-compatible.js';
import { findProviderConfigProblem, operatorProviderIds, type ProviderOverrides } from './provider-config.js';
import { tracedAttempt, tracedStreamedAttempt } from './attempt-span.js';
import { noTracing, type Tracer } from '../tracing/tracer.js';
import { type Clock, systemClock } from '../clock.js';
import { type CallScope, callWithRetries, openCall } from './provider-call.js';
import { type AnswerPiece, closingPieces, FINISHED, type StreamedText, streamedAttempt } from './streamed-attempt.js';
import type { ProviderDefinition } from './provider-definition.js';
import type { SecretScrubber } from './secret-scrubber.js';
import { fetchTransport, pooledTransport } from './wire/transport.js';
import type { Conversation, FinishReason, ToolCall } from './wire/conversation.js';
import type { StructuredOutput, TokenUsage } from './wire/wire-format.js';

export interface ProviderCall {
  /** The caller's own provider key. */
  apiKey: string;
  /**
   * Every key of the request this call is part of (its own, a fallback's, a judge's): a provider's
   * error text is scrubbed of all of them where it is read, so no message built from it can carry one.
   */
  scrubber: SecretScrubber;
  /** Overrides the provider's default model for this call. */
  model?: string;
  /** What the provider is asked: the persona's instructions first, then the caller's turns (a refine: one). */
  conversation: Conversation;
  /** Aborting it (client disconnect) aborts the provider request; generate then throws ClientAbortedError. */
  signal?: AbortSignal;
  /** `generate` only: asks for JSON of this schema through the provider's structured output; `text` is that JSON, unchecked. */
  output?: StructuredOutput;
}

export interface ProviderAnswer {
  /** '' when the answer is only tool calls. */
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** The model that answered (the call's, else the configured default). */
  model: string;
  attempts: number;
  /** Attempts that failed before the answer (calls that billed nothing). A failed call's error carries its own: failedCallOf. */
  failedAttempts: number;
  durationMs: number;
  /** The tokens the provider reported for the successful attempt, when it did. */
  usage: TokenUsage | undefined;
}

/** A provider's answer as it arrives; the deadline and the caller's signal still bound it. */
export interface ProviderTextStream {
  model: string;
  attempts: number;
  /** Attempts that failed before the first text. */
  failedAttempts: number;
  /**
   * The answer's pieces: text, and parts of tool calls (put them together with
   * ToolCallAssembly). The first text piece holds more than whitespace, unless a part of a tool
   * call came before any such text. Throws a provider_* DomainError (504 at the deadline) or
   * ClientAbortedError if the stream breaks. Stopping early (`return()`) aborts the provider's stream.
   */
  pieces: AsyncGenerator<AnswerPiece, void, undefined>;
  /** The tokens the provider reported so far; complete once `pieces` ended (a member is absent while unreported). */
  usage(): Partial<TokenUsage>;
  /** Why the model stopped: known once `pieces` ended, when the provider said. */
  finishReason(): FinishReason | undefined;
}

export interface ProviderDescription {
  id: string;
  name: string;
  defaultModel: string;
}

export interface ProviderRegistry {
  /** Built-in ids first, then operator-declared ones. */
  ids(): string[];
  /** Every provider, in the order of ids(). */
  describe(): ProviderDescription[];
  has(id: string): boolean;
  defaultModel(id: string): string;
  /**
   * Throws the invalid_request DomainError (400) `generate` and `stream` would throw before any
   * call when the provider cannot honour part of the conversation (`provider "anthropic" cannot
   * honour seed`): a run checks every provider it may call before calling the first.
   */
  checkConversation(id: string, conversation: Conversation): void;
  /**
   * Rejects with a DomainError whose code is provider_* (or invalid_request for an unknown id),
   * or with ClientAbortedError when `call.signal` aborted.
   */
  generate(id: string, call: ProviderCall, budget: ProviderBudget): Promise<ProviderAnswer>;
  /**
   * Resolves once the provider's first text (or tool call) arrived, with retries before that
   * exactly as `generate`; rejects as `generate` does for everything before it.
   */
  stream(id: string, call: ProviderCall, budget: ProviderBudget): Promise<ProviderTextStream>;
}

export interface ProviderBudget {
  /** Epoch ms after which the call is abandoned with provider_timeout (504). */
  deadline: number;
  /** The configured timeout, named in the 504 message. Default: the time the call had. */
  timeoutMs?: number;
  /** Retries after the first attempt; default: the registry's. */
  maxRetries?: number;
}

export interface ProviderRegistryOptions {
  /** Replaces the pooled undici client with a fetch (tests that stub the network). */
  fetch?: typeof fetch;
  /** Retries after the first attempt, for retryable failures only. Default 2. */
  maxRetries?: number;
  /** A span per attempt when tracing is on. */
  tracer?: Tracer;
  /** Deadlines and retry waits; the system's by default. */
  clock?: Clock;
}

interface ResolvedProvider {
  definition: ProviderDefinition;
  baseUrl: string;
  model: string;
}

function resolveProviders(overrides: ProviderOverrides): Map<string, ResolvedProvider> {
  const problem = findProviderConfigProblem(overrides);
  if (problem) throw new Error(`invalid configuration: ${problem.variable} ${problem.problem}`);
  const providers = new Map<string, ResolvedProvider>();
  for (const [id, definition] of Object.entries(builtInProviders)) {
    providers.set(id, {
      definition,
      baseUrl: overrides.baseUrls[id] ?? definition.defaultBaseUrl,
      model: overrides.models[id] ?? definition.defaultModel,
    });
  }
  for (const id of operatorProviderIds(overrides)) {
    const baseUrl = overrides.baseUrls[id] as string;
    const model = overrides.models[id] as string;
    providers.set(id, { definition: openAICompatible(baseUrl, model), baseUrl, model });
  }
  return providers;
}

/** How one kind of attempt is made and traced. */
interface AttemptKind<T> {
  attempt: (target: AttemptTarget, prompt: Prompt) => Attempt<T>;
  traced: (tracer: Tracer, providerId: string, model: string, attempt: Attempt<T>) => Attempt<T>;
}

const ANSWERED: AttemptKind<ProviderText> = { attempt: answerAttempt, traced: tracedAttempt };
const STREAMED: AttemptKind<StreamedText> = { attempt: streamedAttempt, traced: tracedStreamedAttempt };

/** Throws the same message config.ts would print if the overrides are unusable (see findProviderConfigProblem). */
export function createProviderRegistry(
  overrides: ProviderOverrides,
  options: ProviderRegistryOptions = {},
): ProviderRegistry {
  const providers = resolveProviders(overrides);
  const maxRetries = options.maxRetries ?? 2;
  const transport = options.fetch ? fetchTransport(options.fetch) : pooledTransport;
  const tracer = options.tracer ?? noTracing;
  const clock = options.clock ?? systemClock;
  const ids = [...providers.keys()];

  const lookup = (id: string): ResolvedProvider => {
    const provider = providers.get(id);
    if (!provider) throw invalidRequest(`provider must be one of ${ids.join(', ')}`);
    return provider;
  };

  const checkConversation = (id: string, conversation: Conversation): void => {
    const refusal = lookup(id).definition.wire.refusal(conversation);
    if (refusal !== undefined) throw invalidRequest(`provider "${id}" cannot honour ${refusal}`);
  };

  const targetFor = (id: string, call: ProviderCall): { target: AttemptTarget; model: string } => {
    checkConversation(id, call.conversation);
    const { definition, baseUrl, model } = lookup(id);
    return {
      target: { providerId: id, apiKey: call.apiKey, scrubber: call.scrubber, rejectsKey: definition.rejectsKey, wire: definition.wire, transport, baseUrl },
      model: call.model ?? model,
    };
  };

  /**
   * What `generate` and `stream` share, so they cannot drift: the target, the call scope
   * (deadline and caller's signal), the attempt's span and the retry budget.
   * The scope is closed if no attempt succeeded; the caller closes it otherwise.
   */
  const attempted = async <T>(id: string, call: ProviderCall, budget: ProviderBudget, kind: AttemptKind<T>) => {
    const { target, model } = targetFor(id, call);
    const scope = openCall({ providerId: id, signal: call.signal, deadline: budget.deadline, timeoutMs: budget.timeoutMs }, clock);
    try {
      const attempt = kind.traced(tracer, id, model, kind.attempt(target, { model, conversation: call.conversation, output: call.output }));
      const { value, attempts, failedAttempts } = await callWithRetries(scope, attempt, budget.maxRetries ?? maxRetries, clock);
      return { target, model, scope, value, attempts, failedAttempts };
    } catch (error) {
      scope.close();
      throw error;
    }
  };

  return {
    async stream(id, call, budget) {
      const { target, model, scope, value, attempts, failedAttempts } = await attempted(id, call, budget, STREAMED);
      return { model, attempts, failedAttempts, pieces: streamedPieces(scope, target, value), usage: value.usage, finishReason: value.finishReason };
    },
    ids: () => [...ids],
    describe: () => ids.map((id) => ({ id, name: lookup(id).definition.name ?? id, defaultModel: lookup(id).model })),
    has: (id) => providers.has(id),
    defaultModel: (id) => lookup(id).model,
    checkConversation,
    async generate(id, call, budget) {
      const started = clock.now();
      const { model, scope, value, attempts, failedAttempts } = await attempted(id, call, budget, ANSWERED);
      scope.close();
      const { text, toolCalls, finishReason, usage } = value;
      return { text, toolCalls, finishReason, usage, model, attempts, failedAttempts, durationMs: clock.now() - started };
    },
  };
}

/**
 * The stream's pieces inside its call scope: the scope closes when they end, however they end
 * (also when the reader stops before its first piece). By hand rather than an async generator,
 * which would cost a round of promises per piece.
 */
function streamedPieces(scope: CallScope, target: AttemptTarget, text: StreamedText): AsyncGenerator<AnswerPiece, void, undefined> {
  let at = 0;
  let ended = false;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    // Left early: without an abort the HTTP client would read the rest of the stream to reuse the connection.
    if (!ended) scope.abort();
    scope.close();
    await text.rest.return(undefined);
  };
  return closingPieces(close, async () => {
    if (closed) return FINISHED;
    if (at < text.first.length) return { done: false, value: text.first[at++] as AnswerPiece };
    let next: IteratorResult<AnswerPiece, void>;
    try {
      next = await text.rest.next();
    } catch (error) {
      const failure = scope.signal.aborted ? scope.stopped() : error instanceof DomainError ? error : (connectionFailure(target, error)?.error ?? error);
      await close();
      throw failure;
    }
    if (!next.done) return next;
    ended = true;
    await close();
    return FINISHED;
  });
}
