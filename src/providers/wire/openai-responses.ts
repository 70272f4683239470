import { isRecord, tokenUsage, USER_AGENT, type StreamEvent, type WireFormat } from './wire-format.js';

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

function outputText(answer: unknown): string | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.output)) return undefined;
  let text = '';
  for (const item of answer.output) {
    if (!isRecord(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') text += part.text;
    }
  }
  return text;
}

/**
 * OpenAI Responses API: `POST /responses`. `instructions` carries the system
 * prompt for every model family; `store: false` keeps callers' text out of
 * OpenAI's conversation storage, since a rewrite needs no server-side state. Structured
 * output is `text.format` of type `json_schema`, strict.
 */
export const openAIResponses: WireFormat = {
  request: (apiKey, model, system, user, stream = false, output) => ({
    path: '/responses',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify({
      model,
      instructions: system,
      input: [{ role: 'user', content: [{ type: 'input_text', text: user }] }],
      store: false,
      ...(stream ? { stream: true } : {}),
      ...(output ? { text: { format: { type: 'json_schema', name: output.name, description: output.description, schema: output.schema, strict: true } } } : {}),
    }),
  }),
  text: outputText,
  // The JSON comes back as the message's output_text.
  structuredText: outputText,
  // input_tokens counts cached input too; output_tokens counts reasoning tokens too.
  usage: responseUsage,
  // response.output_text.delta … response.completed; a failure is `response.failed` or `error`.
  streamEvent(data) {
    if (!isRecord(data)) return undefined;
    switch (data.type) {
      case 'response.output_text.delta':
        return typeof data.delta === 'string' ? { text: data.delta } : undefined;
      case 'response.completed':
      case 'response.incomplete': {
        const usage = responseUsage(data.response);
        return usage ? { usage, end: true } : { end: true };
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
  },
};
