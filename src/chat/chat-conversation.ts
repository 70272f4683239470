/**
 * A Chat Completions request as the providers' conversation (src/providers/wire/conversation.ts):
 * the persona's instructions first, then the caller's messages in their order, tools, tool
 * choice, response format and sampling. What no wire format can carry (images, audio, several
 * choices) is refused here, naming the member; what one provider cannot honour, the registry
 * refuses before any call.
 */
import { invalidRequest } from '../errors.js';
import type { Conversation, ConversationMessage, ResponseFormat, Sampling, ToolChoice, ToolDefinition } from '../providers/index.js';
import type { ChatMessage, ChatRequest, ChatResponseFormat, ChatTextPart, ChatToolChoice } from './chat-request.js';

/** Every part of a message's content must be text: the wire formats carry text only. */
function messageText(content: ChatMessage['content'], index: number): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part: ChatTextPart, at) => {
    if (part.type !== 'text' || typeof part.text !== 'string') {
      throw invalidRequest(`messages[${index}].content[${at}] is a "${String(part.type).slice(0, 40)}" part; only text parts are supported (no image, audio or file input)`);
    }
    return part.text;
  }).join('');
}

function conversationMessage(message: ChatMessage, index: number): ConversationMessage {
  const text = messageText(message.content, index);
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', text };
    case 'user':
      return { role: 'user', text };
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map(({ id, function: { name, arguments: args } }) => ({ id, name, arguments: args }));
      return calls.length > 0 ? { role: 'assistant', text, toolCalls: calls } : { role: 'assistant', text };
    }
    case 'tool':
      if (message.tool_call_id === undefined) throw invalidRequest(`messages[${index}] has role "tool" but no tool_call_id`);
      return { role: 'tool', toolCallId: message.tool_call_id, text };
  }
}

const toolChoiceOf = (choice: ChatToolChoice): ToolChoice => (typeof choice === 'string' ? choice : { name: choice.function.name });

function responseFormatOf(format: ChatResponseFormat): ResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, description, schema, strict } = format.json_schema;
  return {
    type: 'json_schema', name, schema: schema ?? {},
    ...(description === undefined ? {} : { description }), ...(typeof strict === 'boolean' ? { strict } : {}),
  };
}

function samplingOf(request: ChatRequest): Sampling | undefined {
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  const stop = typeof request.stop === 'string' ? [request.stop] : request.stop;
  const sampling: Sampling = {
    ...(typeof request.temperature === 'number' ? { temperature: request.temperature } : {}),
    ...(typeof request.top_p === 'number' ? { topP: request.top_p } : {}),
    ...(typeof maxTokens === 'number' ? { maxTokens } : {}),
    ...(stop && stop.length > 0 ? { stop } : {}),
    ...(typeof request.seed === 'number' ? { seed: request.seed } : {}),
    ...(request.user === undefined ? {} : { user: request.user }),
  };
  return Object.keys(sampling).length > 0 ? sampling : undefined;
}

function toolOf({ function: { name, description, parameters, strict } }: NonNullable<ChatRequest['tools']>[number]): ToolDefinition {
  return { name, ...(description === undefined ? {} : { description }), ...(parameters === undefined ? {} : { parameters }), ...(typeof strict === 'boolean' ? { strict } : {}) };
}

export function chatConversation(personaSystem: string, request: ChatRequest): Conversation {
  if (typeof request.n === 'number' && request.n > 1) throw invalidRequest('n must be 1: one persona answer per request (send several requests for several choices)');
  const sampling = samplingOf(request);
  return {
    system: personaSystem,
    answerKind: 'generated',
    messages: request.messages.map(conversationMessage),
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools.map(toolOf) } : {}),
    ...(request.tool_choice === undefined ? {} : { toolChoice: toolChoiceOf(request.tool_choice) }),
    ...(request.response_format === undefined ? {} : { responseFormat: responseFormatOf(request.response_format) }),
    ...(sampling ? { sampling } : {}),
  };
}
