import { isRecord, tokenUsage, USER_AGENT, type StreamEvent, type WireFormat } from './wire-format.js';

/** The HTTP status a streamed Chat Completions error stands for (some servers put it in `code`). */
function statusOf(error: Record<string, unknown>): number {
  if (typeof error.code === 'number' && error.code >= 400 && error.code < 600) return error.code;
  const label = `${String(error.type)} ${String(error.code)}`;
  if (/rate_limit|insufficient_quota/.test(label)) return 429;
  if (/invalid_request|context_length/.test(label)) return 400;
  return 500;
}

function messageContent(answer: unknown): string | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.choices)) return undefined;
  const [choice] = answer.choices;
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  const { content } = choice.message;
  if (content === null) return '';
  return typeof content === 'string' ? content : undefined;
}

const chatUsage = (usage: unknown) => (isRecord(usage) ? tokenUsage(usage.prompt_tokens, usage.completion_tokens) : undefined);

/**
 * OpenAI-style Chat Completions (`POST /chat/completions`, Bearer key): Groq, DeepSeek, xAI, Mistral, Ollama, vLLM…
 * Structured output is `response_format` of type `json_schema`, strict, as all of them take it.
 * `askForStreamUsage`: send `stream_options.include_usage`, which servers that refuse unknown
 * fields (Mistral) reject; they report usage in the last chunk anyway.
 */
function chatCompletionsFormat(askForStreamUsage: boolean): WireFormat {
  const streamFields = askForStreamUsage ? { stream: true, stream_options: { include_usage: true } } : { stream: true };
  return {
    request: (apiKey, model, system, user, stream = false, output) => ({
      path: '/chat/completions',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body: JSON.stringify({
        model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        ...(stream ? streamFields : {}),
        ...(output
          ? { response_format: { type: 'json_schema', json_schema: { name: output.name, description: output.description, schema: output.schema, strict: true } } }
          : {}),
      }),
    }),
    text: messageContent,
    // The JSON comes back as the message's content.
    structuredText: messageContent,
    usage: (answer) => (isRecord(answer) ? chatUsage(answer.usage) : undefined),
    // choices[].delta.content … `data: [DONE]`; usage in a last chunk (Groq: under x_groq); errors as { error }.
    streamEvent(data): StreamEvent | undefined {
      if (data === '[DONE]') return { end: true };
      if (!isRecord(data)) return undefined;
      if (isRecord(data.error)) return { error: { status: statusOf(data.error), body: JSON.stringify({ error: data.error }) } };
      const event: StreamEvent = {};
      const usage = chatUsage(data.usage) ?? (isRecord(data.x_groq) ? chatUsage(data.x_groq.usage) : undefined);
      if (usage) event.usage = usage;
      const [choice] = Array.isArray(data.choices) ? data.choices : [];
      if (isRecord(choice) && isRecord(choice.delta) && typeof choice.delta.content === 'string') event.text = choice.delta.content;
      return event;
    },
  };
}

export const chatCompletions = chatCompletionsFormat(true);
export const chatCompletionsWithoutStreamOptions = chatCompletionsFormat(false);
