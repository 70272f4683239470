import type { ConversationMessage, FinishReason, ResponseFormat, ToolCall, ToolCallDelta } from './conversation.js';
import { type AnswerContent, definedMembers, isRecord, type StreamEvent, tokenUsage, USER_AGENT, type WireFormat } from './wire-format.js';

/** The HTTP status a streamed Chat Completions error stands for (some servers put it in `code`). */
function statusOf(error: Record<string, unknown>): number {
  if (typeof error.code === 'number' && error.code >= 400 && error.code < 600) return error.code;
  const label = `${String(error.type)} ${String(error.code)}`;
  if (/rate_limit|insufficient_quota/.test(label)) return 429;
  if (/invalid_request|context_length/.test(label)) return 400;
  return 500;
}

/** OpenAI's words, and the older or other servers' for the same (`function_call`, Mistral's `model_length`). */
function finishReasonOf(reason: unknown, calledTools: boolean): FinishReason {
  if (reason === 'length' || reason === 'model_length') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  if (reason === 'tool_calls' || reason === 'function_call' || calledTools) return 'tool_calls';
  return 'stop';
}

function toolCallsOf(calls: unknown): ToolCall[] {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call) => {
    if (!isRecord(call) || typeof call.id !== 'string' || !isRecord(call.function) || typeof call.function.name !== 'string') return [];
    return [{ id: call.id, name: call.function.name, arguments: typeof call.function.arguments === 'string' ? call.function.arguments : '{}' }];
  });
}

function messageContent(answer: unknown): AnswerContent | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.choices)) return undefined;
  const [choice] = answer.choices;
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  const { content } = choice.message;
  const toolCalls = toolCallsOf(choice.message.tool_calls);
  // Content is null beside tool calls; some servers leave it out then.
  if (typeof content !== 'string' && content !== null && !(content === undefined && toolCalls.length > 0)) return undefined;
  return { text: content ?? '', toolCalls, finishReason: finishReasonOf(choice.finish_reason, toolCalls.length > 0) };
}

function deltaToolCalls(calls: unknown): ToolCallDelta[] {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call, position) => {
    if (!isRecord(call)) return [];
    const fn = isRecord(call.function) ? call.function : {};
    return [{
      // Some servers leave out `index` when they send each call whole, in one delta.
      index: typeof call.index === 'number' ? call.index : position,
      ...(typeof call.id === 'string' ? { id: call.id } : {}),
      ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
      ...(typeof fn.arguments === 'string' ? { arguments: fn.arguments } : {}),
    }];
  });
}

const chatUsage = (usage: unknown) => (isRecord(usage) ? tokenUsage(usage.prompt_tokens, usage.completion_tokens) : undefined);

/** The caller's turns after the persona's system message, in their order and roles. */
function chatMessages(messages: ConversationMessage[]): unknown[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.text };
      case 'assistant':
        return message.toolCalls && message.toolCalls.length > 0
          ? {
              role: 'assistant', content: message.text === '' ? null : message.text,
              tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
            }
          : { role: 'assistant', content: message.text };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.text };
    }
  });
}

function responseFormat(format: ResponseFormat): unknown {
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, description, schema, strict } = format;
  return { type: 'json_schema', json_schema: { name, ...(description === undefined ? {} : { description }), schema, ...(strict === undefined ? {} : { strict }) } };
}


/** What differs between the servers that speak Chat Completions. */
interface ChatDialect {
  /**
   * Send `stream_options.include_usage`, which servers that refuse unknown fields (Mistral)
   * reject; they report usage in the last chunk anyway.
   */
  askForStreamUsage: boolean;
  /** Mistral names the seed `random_seed` and has no end-user field (an unknown field is a 422 there, so `user` is left out). */
  mistral: boolean;
}

/**
 * OpenAI-style Chat Completions (`POST /chat/completions`, Bearer key): Groq, DeepSeek, xAI, Mistral, Ollama, vLLM…
 * The conversation goes as it is: the persona's system message first, then the caller's messages.
 * Structured output is `response_format` of type `json_schema`, strict, as all of them take it.
 */
function chatCompletionsFormat({ askForStreamUsage, mistral }: ChatDialect): WireFormat {
  const streamFields = askForStreamUsage ? { stream: true, stream_options: { include_usage: true } } : { stream: true };
  return {
    refusal: () => undefined,
    request: (apiKey, model, conversation, stream = false, output) => {
      const { sampling, tools, toolChoice } = conversation;
      return {
        path: '/chat/completions',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
        body: JSON.stringify({
          model,
          messages: [{ role: 'system', content: conversation.system }, ...chatMessages(conversation.messages)],
          ...(stream ? streamFields : {}),
          ...(tools && tools.length > 0
            ? {
                tools: tools.map((tool) => ({
                  type: 'function',
                  function: definedMembers({ name: tool.name, description: tool.description, parameters: tool.parameters, strict: tool.strict }),
                })),
              }
            : {}),
          ...definedMembers({
            tool_choice: toolChoice === undefined ? undefined : typeof toolChoice === 'string' ? toolChoice : { type: 'function', function: { name: toolChoice.name } },
            response_format: output
              ? { type: 'json_schema', json_schema: { name: output.name, description: output.description, schema: output.schema, strict: true } }
              : conversation.responseFormat && responseFormat(conversation.responseFormat),
            temperature: sampling?.temperature,
            top_p: sampling?.topP,
            max_tokens: sampling?.maxTokens,
            stop: sampling?.stop,
            [mistral ? 'random_seed' : 'seed']: sampling?.seed,
            user: mistral ? undefined : sampling?.user,
          }),
        }),
      };
    },
    answer: messageContent,
    // The JSON comes back as the message's content.
    structuredText: (answer) => messageContent(answer)?.text,
    usage: (answer) => (isRecord(answer) ? chatUsage(answer.usage) : undefined),
    // choices[].delta.content and .tool_calls … `data: [DONE]`; usage in a last chunk (Groq: under x_groq); errors as { error }.
    streamReader: () => {
      let calledTools = false;
      return (data): StreamEvent | undefined => {
        if (data === '[DONE]') return { end: true };
        if (!isRecord(data)) return undefined;
        if (isRecord(data.error)) return { error: { status: statusOf(data.error), body: JSON.stringify({ error: data.error }) } };
        const event: StreamEvent = {};
        const usage = chatUsage(data.usage) ?? (isRecord(data.x_groq) ? chatUsage(data.x_groq.usage) : undefined);
        if (usage) event.usage = usage;
        const [choice] = Array.isArray(data.choices) ? data.choices : [];
        if (!isRecord(choice)) return event;
        if (isRecord(choice.delta) && typeof choice.delta.content === 'string') event.text = choice.delta.content;
        const toolCalls = isRecord(choice.delta) ? deltaToolCalls(choice.delta.tool_calls) : [];
        if (toolCalls.length > 0) {
          calledTools = true;
          event.toolCalls = toolCalls;
        }
        if (typeof choice.finish_reason === 'string') event.finishReason = finishReasonOf(choice.finish_reason, calledTools);
        return event;
      };
    },
  };
}

export const chatCompletions = chatCompletionsFormat({ askForStreamUsage: true, mistral: false });
export const mistralChatCompletions = chatCompletionsFormat({ askForStreamUsage: false, mistral: true });
