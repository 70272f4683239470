import { type Conversation, type ConversationMessage, type FinishReason, systemTexts, type ToolCall, type ToolChoice } from './conversation.js';
import { definedMembers, isRecord, type StreamEvent, type StructuredOutput, tokenUsage, USER_AGENT, type WireFormat } from './wire-format.js';

/**
 * Gemini's `responseSchema` is an OpenAPI subset: upper-case type names, and no
 * `additionalProperties` (an unknown field is a 400); `propertyOrdering` keeps the JSON's
 * members in the schema's order.
 */
function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema);
  if (!isRecord(schema)) return schema;
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties') continue;
    if (key === 'type' && typeof value === 'string') converted.type = value.toUpperCase();
    else if (key === 'properties' && isRecord(value)) {
      converted.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, geminiSchema(property)]));
      converted.propertyOrdering = Object.keys(value);
    } else converted[key] = geminiSchema(value);
  }
  return converted;
}

/** Gemini's finish reasons in OpenAI's words; a stop that called functions is `tool_calls`. */
function finishReasonOf(reason: unknown, calledTools: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && /SAFETY|RECITATION|BLOCKLIST|PROHIBITED|SPII/.test(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/**
 * Gemini gives function calls no id: a call is `call_<n>`, its position among the answer's
 * calls (a stream counts across its chunks), which the caller's tool result names back.
 */
const callId = (position: number) => `call_${position}`;

type Part = Record<string, unknown>;
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** A tool result as the object `functionResponse.response` must be: the result's JSON object, else `{ content: <text> }`. */
function responseObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // Not JSON: the text itself is the result.
  }
  return { content: text };
}

function argsOf(call: ToolCall): unknown {
  try {
    return JSON.parse(call.arguments);
  } catch {
    return {};
  }
}

/** The function each tool result answers: Gemini names it, where the others give the call's id. */
function functionNameOf(messages: ConversationMessage[], upTo: number, toolCallId: string): string | undefined {
  for (let i = upTo - 1; i >= 0; i--) {
    const message = messages[i];
    const call = message?.role === 'assistant' ? message.toolCalls?.find((candidate) => candidate.id === toolCallId) : undefined;
    if (call) return call.name;
  }
  return undefined;
}

/**
 * The caller's turns as `contents` (roles `user` and `model`); system messages join the persona's
 * in `systemInstruction`. Turns of one role that follow each other are merged (the answers to
 * several function calls go back in one turn). A function call we send back carries the
 * signature Google documents for calls that did not come from this model's own thinking, which
 * Gemini 3 otherwise requires (it does not keep its signatures here: the call came through a client).
 */
function geminiContents(messages: ConversationMessage[]): Content[] {
  const contents: Content[] = [];
  const add = (role: Content['role'], parts: Part[]) => {
    // A model turn with neither text nor calls says nothing, and Gemini refuses a content without parts.
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        return;
      case 'user':
        return add('user', [{ text: message.text }]);
      case 'assistant':
        return add('model', [
          ...(message.text === '' ? [] : [{ text: message.text }]),
          ...(message.toolCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: argsOf(call) }, thoughtSignature: SKIP_SIGNATURE })),
        ]);
      case 'tool':
        return add('user', [{ functionResponse: { name: functionNameOf(messages, index, message.toolCallId) ?? '', response: responseObject(message.text) } }]);
    }
  });
  return contents;
}

const SKIP_SIGNATURE = 'skip_thought_signature_validator';

function toolConfig(choice: ToolChoice): unknown {
  if (typeof choice !== 'string') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  return { functionCallingConfig: { mode: choice === 'required' ? 'ANY' : choice.toUpperCase() } };
}


function generationConfig({ sampling, responseFormat }: Conversation, output: StructuredOutput | undefined): Record<string, unknown> {
  const format =
    output ? { responseMimeType: 'application/json', responseSchema: geminiSchema(output.schema) }
    : responseFormat?.type === 'json_object' ? { responseMimeType: 'application/json' }
    : responseFormat?.type === 'json_schema' ? { responseMimeType: 'application/json', responseJsonSchema: responseFormat.schema }
    : {};
  return definedMembers({
    temperature: sampling?.temperature, topP: sampling?.topP, maxOutputTokens: sampling?.maxTokens, stopSequences: sampling?.stop, seed: sampling?.seed, ...format,
  });
}

/** A tool result must name the function it answers, which only an earlier assistant tool call with its id tells. */
function refusal({ messages }: Conversation): string | undefined {
  const index = messages.findIndex((message, at) => message.role === 'tool' && functionNameOf(messages, at, message.toolCallId) === undefined);
  const orphan = messages[index];
  return orphan?.role === 'tool' ? `a tool result whose tool_call_id "${orphan.toolCallId.slice(0, 64)}" names no earlier tool call` : undefined;
}

/** Text and function calls of the first candidate; `first` numbers the calls (a stream's earlier chunks had the ones before). */
function candidateContent(answer: Record<string, unknown>, first: number): { text: string; toolCalls: ToolCall[]; finish: unknown } | undefined {
  // A blocked prompt comes back with promptFeedback and no candidates: no text, not a broken answer.
  if (answer.candidates === undefined && isRecord(answer.promptFeedback)) return { text: '', toolCalls: [], finish: 'SAFETY' };
  if (!Array.isArray(answer.candidates)) return undefined;
  const [candidate] = answer.candidates;
  if (!isRecord(candidate)) return undefined;
  const parts = isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const part of parts) {
    if (!isRecord(part)) continue;
    if (typeof part.text === 'string' && part.thought !== true) text += part.text;
    if (isRecord(part.functionCall) && typeof part.functionCall.name === 'string') {
      toolCalls.push({ id: callId(first + toolCalls.length), name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
    }
  }
  return { text, toolCalls, finish: candidate.finishReason };
}

/**
 * Gemini API: `POST /models/{model}:generateContent`, `x-goog-api-key`, system as `systemInstruction`.
 * Structured output is `generationConfig.responseSchema` with `responseMimeType: application/json`;
 * a caller's JSON Schema goes as `responseJsonSchema`, and function parameters as `parametersJsonSchema`,
 * which take JSON Schema as it is. Gemini has no end-user field: `user` is not sent.
 */
export const googleGenerateContent: WireFormat = {
  refusal,
  request: (apiKey, model, conversation, stream = false, output) => {
    const { tools, toolChoice } = conversation;
    const config = generationConfig(conversation, output);
    return {
      path: `/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body: JSON.stringify({
        systemInstruction: { parts: systemTexts(conversation).map((text) => ({ text })) },
        contents: geminiContents(conversation.messages),
        ...(tools && tools.length > 0
          ? { tools: [{ functionDeclarations: tools.map((tool) => definedMembers({ name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters })) }] }
          : {}),
        ...(toolChoice === undefined ? {} : { toolConfig: toolConfig(toolChoice) }),
        ...(Object.keys(config).length > 0 ? { generationConfig: config } : {}),
      }),
    };
  },
  answer: (answer) => {
    const content = isRecord(answer) ? candidateContent(answer, 0) : undefined;
    return content && { text: content.text, toolCalls: content.toolCalls, finishReason: finishReasonOf(content.finish, content.toolCalls.length > 0) };
  },
  // The JSON comes back as the candidate's text.
  structuredText: (answer) => (isRecord(answer) ? candidateContent(answer, 0)?.text : undefined),
  usage: usageOf,
  // Each event is a GenerateContentResponse holding the next text or whole function calls; the last one has a finishReason.
  streamReader: () => {
    let calls = 0;
    return (data): StreamEvent | undefined => {
      if (!isRecord(data)) return undefined;
      if (isRecord(data.error)) {
        const status = typeof data.error.code === 'number' ? data.error.code : 500;
        return { error: { status, body: JSON.stringify(data) } };
      }
      const event: StreamEvent = {};
      const content = candidateContent(data, calls);
      if (content?.text) event.text = content.text;
      if (content && content.toolCalls.length > 0) {
        event.toolCalls = content.toolCalls.map((call, i) => ({ index: calls + i, ...call }));
        calls += content.toolCalls.length;
      }
      const usage = usageOf(data);
      if (usage) event.usage = usage;
      const [candidate] = Array.isArray(data.candidates) ? data.candidates : [];
      // A blocked prompt ends the stream with promptFeedback and no candidates.
      if ((isRecord(candidate) && typeof candidate.finishReason === 'string') || (data.candidates === undefined && isRecord(data.promptFeedback))) {
        event.finishReason = finishReasonOf(content?.finish, calls > 0);
        event.end = true;
      }
      return event;
    };
  },
};

function usageOf(answer: unknown) {
  if (!isRecord(answer) || !isRecord(answer.usageMetadata)) return undefined;
  const { promptTokenCount, candidatesTokenCount, thoughtsTokenCount } = answer.usageMetadata;
  // Thinking tokens are billed as output but not counted in candidatesTokenCount.
  const thoughts = typeof thoughtsTokenCount === 'number' ? thoughtsTokenCount : 0;
  return tokenUsage(promptTokenCount, typeof candidatesTokenCount === 'number' ? candidatesTokenCount + thoughts : candidatesTokenCount);
}
