/**
 * What a provider is asked and what it answers, whatever its wire format: a conversation
 * (a refine is the shortest one: the persona's instructions and one user message) and an
 * answer of text or tool calls. The HTTP routes translate their own shapes into these;
 * each wire format (wire/) translates these into its provider's.
 */

/** A tool call the model asked for; `arguments` is the JSON text the model wrote, unparsed. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * One turn of the caller's conversation, in its order. `system` holds the caller's own
 * system (or developer) instructions, which stay where the caller put them where the wire
 * format allows it; the persona's instructions are `Conversation.system`, always first.
 */
export type ConversationMessage =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; text: string };

/** A function the model may call; `parameters` is its JSON Schema. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; description?: string; schema: Record<string, unknown>; strict?: boolean };

/** Sampling and limits the caller set; absent members are the provider's defaults. */
export interface Sampling {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** The caller's end-user id, passed on where the provider takes one. */
  user?: string;
}

export interface Conversation {
  /** The persona's instructions: first, before anything of the caller's. */
  system: string;
  /**
   * What the answer is. `rewrite` (the default, a refine's): the user message rewritten, about
   * as long, and unwrapped of what models wrap rewrites in. `generated` (a chat completion's): the
   * model's own answer, as long as it needs and kept as written.
   */
  answerKind?: 'rewrite' | 'generated';
  messages: ConversationMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  responseFormat?: ResponseFormat;
  sampling?: Sampling;
}

/** Why the model stopped, in OpenAI's words (each wire format maps its own). */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * A part of a tool call as a stream brings it. Parts with the same `index` belong to one call;
 * indexes are the provider's positions in its answer, so they need not start at 0 or follow
 * each other. `arguments` pieces are concatenated in order.
 */
export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** The tool calls of a streamed answer, put together from their deltas in the order they first appeared. */
export class ToolCallAssembly {
  private readonly calls = new Map<number, ToolCall>();

  add(delta: ToolCallDelta): void {
    let call = this.calls.get(delta.index);
    if (!call) this.calls.set(delta.index, (call = { id: '', name: '', arguments: '' }));
    if (delta.id !== undefined) call.id = delta.id;
    if (delta.name !== undefined) call.name += delta.name;
    if (delta.arguments !== undefined) call.arguments += delta.arguments;
  }

  /** A call that streamed no arguments took none: `{}`, as a whole answer says it. */
  toolCalls(): ToolCall[] {
    return [...this.calls.values()].map((call) => ({ ...call, arguments: call.arguments === '' ? '{}' : call.arguments }));
  }
}

/** The persona's instructions, then the caller's system messages in their order: for APIs that take all of them in one place. */
export const systemTexts = ({ system, messages }: Conversation): string[] =>
  [system, ...messages.flatMap((message) => (message.role === 'system' ? [message.text] : []))];

/** The conversation of a refine: the persona's instructions and one user message. */
export function singleTurn(system: string, user: string): Conversation {
  return { system, messages: [{ role: 'user', text: user }] };
}
