/**
 * A provider's HTTP protocol, for the providers we call without the AI SDK.
 * The SDK spent 1–2 ms of CPU per call (client construction, zod validation of
 * the answer, WHATWG fetch); a wire format is a request template and a parse,
 * a few microseconds. See BENCHMARKS.md for the measurements behind this.
 */
import type { Conversation, FinishReason, ToolCall, ToolCallDelta } from './conversation.js';

export interface WireRequest {
  /** Appended to the provider's base URL. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The tokens a provider reported for one attempt. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * What one server-sent event of a streamed answer says; undefined for events that say
 * nothing we use (pings, bookkeeping). Usage may come in parts (Anthropic sends the
 * input tokens first and the output tokens last); later parts replace earlier ones.
 */
export interface StreamEvent {
  text?: string;
  /** Parts of tool calls, after `text` when an event holds both. */
  toolCalls?: ToolCallDelta[];
  /** Said once, near the end; the last one said stands. */
  finishReason?: FinishReason;
  usage?: Partial<TokenUsage>;
  /** The provider's own end-of-answer marker: without it, a stream that stops was cut. */
  end?: true;
  /** An error the provider reported inside the stream, as the HTTP answer it stands for. */
  error?: { status: number; body: string };
}

/**
 * An answer that is JSON of a given schema, asked for through the provider's own structured
 * output (docs/voice-score.md, "The judge"), never by asking nicely in the prompt alone.
 */
export interface StructuredOutput {
  /** Names the schema, or Anthropic's forced tool: letters, digits, `_` and `-`, at most 64. */
  name: string;
  description: string;
  /**
   * A JSON Schema every provider accepts: objects listing all their `properties` as `required`
   * with `additionalProperties: false`, arrays, string enums, integers with `minimum`/`maximum`.
   */
  schema: Record<string, unknown>;
}

/** What a whole answer says: its text ('' when it is only tool calls), its tool calls and why it stopped. */
export interface AnswerContent {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
}

/** Reads one stream's events in order: one event's JSON data (or the `[DONE]` sentinel as that string) at a time. */
export type StreamReader = (data: unknown) => StreamEvent | undefined;

export interface WireFormat {
  /**
   * What of the conversation this API cannot honour, as the member and value that say it
   * (`response_format json_object`), or undefined when it can honour all of it. The registry
   * refuses such a conversation before any call; `request` is only given the others.
   */
  refusal(conversation: Conversation): string | undefined;
  /**
   * `stream`: ask for the answer as server-sent events, read by a `streamReader()`.
   * `output`: ask for JSON of that schema (never streamed), read by `structuredText`.
   */
  request(apiKey: string, model: string, conversation: Conversation, stream?: boolean, output?: StructuredOutput): WireRequest;
  /** A reader for one stream (some APIs number a stream's tool calls only by what came before). */
  streamReader(): StreamReader;
  /** The answer's text and tool calls; undefined when the JSON is not of the shape this API promises. */
  answer(answer: unknown): AnswerContent | undefined;
  /** The JSON a structured answer holds, as text (still to be parsed and checked against the schema). */
  structuredText(answer: unknown): string | undefined;
  /** The tokens the answer reports; undefined when it reports none. */
  usage(answer: unknown): TokenUsage | undefined;
}

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);

/** What a stream reported so far, member by member: a stream cut early has reported only part of its usage. */
export function reportedTokens({ inputTokens, outputTokens }: Partial<TokenUsage>): Partial<TokenUsage> {
  const input = count(inputTokens);
  const output = count(outputTokens);
  return { ...(input === undefined ? {} : { inputTokens: input }), ...(output === undefined ? {} : { outputTokens: output }) };
}

/** Usage from a provider's token counts: both must be there, or neither is trusted. */
export function tokenUsage(input: unknown, output: unknown): TokenUsage | undefined {
  const inputTokens = count(input);
  const outputTokens = count(output);
  return inputTokens === undefined || outputTokens === undefined ? undefined : { inputTokens, outputTokens };
}

export const USER_AGENT = 'persona-refine/1';

/** The members whose value is set: a conversation's absent member stays out of the request, for the provider's default. */
export const definedMembers = (members: Record<string, unknown>) => Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));

export { isJsonObject as isRecord } from '../../json-object.js';
