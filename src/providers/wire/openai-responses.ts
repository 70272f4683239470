import type { Conversation, ConversationMessage, FinishReason, ResponseFormat, ToolCall, ToolChoice } from './conversation.js';
import { type AnswerContent, definedMembers, isRecord, type StreamEvent, type StreamReader, type StructuredOutput, tokenUsage, USER_AGENT, type WireFormat } from './wire-format.js';

/** The HTTP status an OpenAI error code stands for, so a streamed error is classified like an answered one. */
function statusOfCode(code: unknown): number {
  if (code === 'rate_limit_exceeded' || code === 'insufficient_quota') return 429;
  if (code === 'invalid_prompt' || code === 'invalid_request_error' || code === 'context_length_exceeded') return 400;
  return 500;
}

const streamError = (error: Record<string, unknown>): StreamEvent => ({
  error: { status: statusOfCode(error.code ?? error.type), body: JSON.stringify({ error }) },
});

const responseUsage = (response: unknown) =>
  isRecord(response) && isRecord(response.usage) ? tokenUsage(response.usage.input_tokens, response.usage.output_tokens) : undefined;

/** An answer's output items: `message` items hold the text, `function_call` items the tool calls (`call_id` is the id to answer). */
function outputContent(answer: unknown): AnswerContent | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.output)) return undefined;
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const item of answer.output) {
    if (isRecord(item) && item.type === 'function_call' && typeof item.call_id === 'string' && typeof item.name === 'string') {
      toolCalls.push({ id: item.call_id, name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' });
    }
    if (!isRecord(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') text += part.text;
    }
  }
  return { text, toolCalls, finishReason: finishReasonOf(answer, toolCalls.length > 0) };
}

/** `completed` is a stop (or tool calls); `incomplete` says why in `incomplete_details.reason`. */
function finishReasonOf(response: Record<string, unknown>, calledTools: boolean): FinishReason {
  if (response.status === 'incomplete') {
    const reason = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === 'content_filter' ? 'content_filter' : 'length';
  }
  return calledTools ? 'tool_calls' : 'stop';
}

/** The caller's turns as input items, in order: their system messages stay where they are, as `developer` items. */
function inputItems(messages: ConversationMessage[]): unknown[] {
  return messages.flatMap((message): unknown[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'developer', content: message.text }];
      case 'user':
        return [{ role: 'user', content: [{ type: 'input_text', text: message.text }] }];
      case 'assistant':
        return [
          ...(message.text === '' ? [] : [{ role: 'assistant', content: message.text }]),
          ...(message.toolCalls ?? []).map((call) => ({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments })),
        ];
      case 'tool':
        return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.text }];
    }
  });
}

const toolChoice = (choice: ToolChoice) => (typeof choice === 'string' ? choice : { type: 'function', name: choice.name });

function textFormat(format: ResponseFormat | undefined, output: StructuredOutput | undefined): unknown {
  if (output) return { format: { type: 'json_schema', name: output.name, description: output.description, schema: output.schema, strict: true } };
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { format: { type: 'json_object' } };
  const { name, description, schema, strict } = format;
  return { format: { type: 'json_schema', name, ...(description === undefined ? {} : { description }), schema, ...(strict === undefined ? {} : { strict }) } };
}


/**
 * Reads a stream: text deltas, and function calls from `response.output_item.added` (id, name)
 * and `response.function_call_arguments.delta`, numbered by their `output_index`.
 */
function responsesStreamReader(): StreamReader {
  let calledTools = false;
  return (data) => {
    if (!isRecord(data)) return undefined;
    switch (data.type) {
      case 'response.output_text.delta':
        return typeof data.delta === 'string' ? { text: data.delta } : undefined;
      case 'response.output_item.added': {
        const item = data.item;
        if (!isRecord(item) || item.type !== 'function_call' || typeof data.output_index !== 'number') return undefined;
        calledTools = true;
        return {
          toolCalls: [{
            index: data.output_index, ...(typeof item.call_id === 'string' ? { id: item.call_id } : {}), ...(typeof item.name === 'string' ? { name: item.name } : {}),
            ...(typeof item.arguments === 'string' && item.arguments !== '' ? { arguments: item.arguments } : {}),
          }],
        };
      }
      case 'response.function_call_arguments.delta':
        return typeof data.output_index === 'number' && typeof data.delta === 'string' ? { toolCalls: [{ index: data.output_index, arguments: data.delta }] } : undefined;
      case 'response.completed':
      case 'response.incomplete': {
        const response = isRecord(data.response) ? data.response : {};
        const usage = responseUsage(response);
        const called = calledTools || (outputContent(response)?.toolCalls.length ?? 0) > 0;
        return { ...(usage ? { usage } : {}), finishReason: finishReasonOf(response, called), end: true };
      }
      case 'response.failed': {
        const error = isRecord(data.response) && isRecord(data.response.error) ? data.response.error : { message: 'response failed' };
        return streamError(error);
      }
      case 'error':
        return streamError(isRecord(data.error) ? data.error : data);
      default:
        return undefined;
    }
  };
}

/**
 * OpenAI Responses API: `POST /responses`. `instructions` carries the persona's instructions
 * for every model family; `store: false` keeps callers' text out of OpenAI's conversation
 * storage, since nothing here needs server-side state. Structured output is `text.format`.
 * Responses has no `stop` and no `seed`: a conversation that sets them is refused.
 */
export const openAIResponses: WireFormat = {
  refusal: ({ sampling }: Conversation) =>
    sampling?.stop !== undefined && sampling.stop.length > 0 ? 'stop' : sampling?.seed !== undefined ? 'seed' : undefined,
  request: (apiKey, model, conversation, stream = false, output) => ({
    path: '/responses',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify({
      model,
      instructions: conversation.system,
      input: inputItems(conversation.messages),
      store: false,
      ...(stream ? { stream: true } : {}),
      ...(conversation.tools && conversation.tools.length > 0
        ? {
            tools: conversation.tools.map((tool) => definedMembers({
              type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters ?? { type: 'object', properties: {} }, strict: tool.strict ?? false,
            })),
          }
        : {}),
      ...definedMembers({
        tool_choice: conversation.toolChoice && toolChoice(conversation.toolChoice),
        text: textFormat(conversation.responseFormat, output),
        temperature: conversation.sampling?.temperature,
        top_p: conversation.sampling?.topP,
        max_output_tokens: conversation.sampling?.maxTokens,
        user: conversation.sampling?.user,
      }),
    }),
  }),
  answer: outputContent,
  // The JSON comes back as the message's output_text.
  structuredText: (answer) => outputContent(answer)?.text,
  // input_tokens counts cached input too; output_tokens counts reasoning tokens too.
  usage: responseUsage,
  // response.output_text.delta … response.completed; a failure is `response.failed` or `error`.
  streamReader: responsesStreamReader,
};
