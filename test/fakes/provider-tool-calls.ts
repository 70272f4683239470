/**
 * Tool calls as each provider puts them in a whole answer, and the checks real providers make
 * on a conversation that carries tool calls and their results (a result must answer a call the
 * assistant made; Anthropic wants the roles to alternate). Used by provider-server.ts; streamed
 * tool calls are in provider-streams.ts.
 */
import { isObject, type Json, type WireApi } from './provider-wire-formats.js';

/** A tool call the fake model makes: a function and the arguments it passes. */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What an answer holds besides its text. */
export interface AnswerShape {
  toolCalls?: FakeToolCall[];
  /** The answer stopped at the output token limit. */
  truncated?: boolean;
}


let sequence = 0;
/** An id in the provider's style: `call_…` (OpenAI), `toolu_…` (Anthropic). */
export const toolCallId = (prefix: string) => `${prefix}${(++sequence).toString(36).padStart(8, '0')}FAKE`;

/** A success body (text only, from successBody) turned into one that also calls tools, or stopped at the limit. */
export function withToolCalls(api: WireApi, body: Json, text: string, { toolCalls = [], truncated = false }: AnswerShape): Json {
  if (toolCalls.length === 0 && !truncated) return body;
  const called = toolCalls.length > 0;
  const textless = text === '' && called;
  switch (api) {
    case 'openai-responses': {
      const output = (body.output as Json[]).filter(() => !textless);
      for (const call of toolCalls) {
        output.push({ type: 'function_call', id: toolCallId('fc_'), call_id: toolCallId('call_'), name: call.name, arguments: JSON.stringify(call.arguments), status: 'completed' });
      }
      return { ...body, output, ...(truncated ? { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } : {}) };
    }
    case 'openai-chat': {
      const [choice] = body.choices as Json[];
      const message = {
        ...(choice?.message as Json), content: textless ? null : text,
        ...(called ? { tool_calls: toolCalls.map((call) => ({ id: toolCallId('call_'), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })) } : {}),
      };
      return { ...body, choices: [{ ...choice, message, finish_reason: truncated ? 'length' : called ? 'tool_calls' : 'stop' }] };
    }
    case 'anthropic-messages':
      return {
        ...body,
        content: [...(textless ? [] : [{ type: 'text', text }]), ...toolCalls.map((call) => ({ type: 'tool_use', id: toolCallId('toolu_'), name: call.name, input: call.arguments }))],
        stop_reason: truncated ? 'max_tokens' : called ? 'tool_use' : 'end_turn',
      };
    case 'google-generate-content': {
      const parts = [...(textless ? [] : [{ text }]), ...toolCalls.map((call) => ({ functionCall: { name: call.name, args: call.arguments } }))];
      const [candidate] = body.candidates as Json[];
      return { ...body, candidates: [{ ...candidate, content: { parts, role: 'model' }, finishReason: truncated ? 'MAX_TOKENS' : 'STOP' }] };
    }
  }
}

const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * What the provider would refuse with a 400 in a conversation with tools, or undefined. Each
 * check is one the real API makes: a tool result names a call of the assistant turn before it.
 */
export function conversationProblem(api: WireApi, body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  switch (api) {
    case 'openai-responses': {
      const called = new Set<unknown>();
      for (const item of array(body.input).filter(isObject)) {
        if (item.type === 'function_call') called.add(item.call_id);
        if (item.type === 'function_call_output' && !called.has(item.call_id)) return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
      }
      return undefined;
    }
    case 'openai-chat': {
      const called = new Set<unknown>();
      for (const message of array(body.messages).filter(isObject)) {
        for (const call of array(message.tool_calls).filter(isObject)) called.add(call.id);
        if (message.role === 'tool' && !called.has(message.tool_call_id)) {
          return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
        }
      }
      return undefined;
    }
    case 'anthropic-messages': {
      const messages = array(body.messages).filter(isObject);
      if (messages.some((message) => message.role !== 'user' && message.role !== 'assistant')) return 'messages: Unexpected role. Use the top-level `system` parameter for a system prompt.';
      for (const [i, message] of messages.entries()) {
        if (i > 0 && messages[i - 1]?.role === message.role) return 'messages: roles must alternate between "user" and "assistant"';
        const previous = array(messages[i - 1]?.content).filter(isObject);
        for (const block of array(message.content).filter(isObject)) {
          if (block.type === 'tool_result' && !previous.some((use) => use.type === 'tool_use' && use.id === block.tool_use_id)) {
            return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
          }
        }
      }
      return undefined;
    }
    case 'google-generate-content': {
      const contents = array(body.contents).filter(isObject);
      for (const [i, content] of contents.entries()) {
        const previous = array(contents[i - 1]?.parts).filter(isObject);
        for (const part of array(content.parts).filter(isObject)) {
          const response = isObject(part.functionResponse) ? part.functionResponse : undefined;
          if (response && !previous.some((call) => isObject(call.functionCall) && call.functionCall.name === response.name)) {
            return `Please ensure that function response turn comes immediately after a function call turn, and names its function (got "${String(response.name)}").`;
          }
        }
      }
      return undefined;
    }
  }
}
