/**
 * A provider's HTTP protocol, for the providers we call without the AI SDK.
 * The SDK spent 1–2 ms of CPU per call (client construction, zod validation of
 * the answer, WHATWG fetch); a wire format is a request template and a parse,
 * a few microseconds. See BENCHMARKS.md for the measurements behind this.
 */
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

export interface WireFormat {
  /**
   * `stream`: ask for the answer as server-sent events, read by `streamEvent`.
   * `output`: ask for JSON of that schema (never streamed), read by `structuredText`.
   */
  request(apiKey: string, model: string, system: string, user: string, stream?: boolean, output?: StructuredOutput): WireRequest;
  /** One event's JSON data (or the `[DONE]` sentinel as that string). */
  streamEvent(data: unknown): StreamEvent | undefined;
  /** The answer's text; undefined when the JSON is not of the shape this API promises. */
  text(answer: unknown): string | undefined;
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

export { isJsonObject as isRecord } from '../../json-object.js';
