import { isRecord, tokenUsage, USER_AGENT, type WireFormat } from './wire-format.js';

/**
 * OpenAI Responses API: `POST /responses`. `instructions` carries the system
 * prompt for every model family; `store: false` keeps callers' text out of
 * OpenAI's conversation storage, since a rewrite needs no server-side state.
 */
export const openAIResponses: WireFormat = {
  request: (apiKey, model, system, user) => ({
    path: '/responses',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify({
      model,
      instructions: system,
      input: [{ role: 'user', content: [{ type: 'input_text', text: user }] }],
      store: false,
    }),
  }),
  text(answer) {
    if (!isRecord(answer) || !Array.isArray(answer.output)) return undefined;
    let text = '';
    for (const item of answer.output) {
      if (!isRecord(item) || item.type !== 'message' || !Array.isArray(item.content)) continue;
      for (const part of item.content) {
        if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') text += part.text;
      }
    }
    return text;
  },
  // input_tokens counts cached input too; output_tokens counts reasoning tokens too.
  usage: (answer) => (isRecord(answer) && isRecord(answer.usage) ? tokenUsage(answer.usage.input_tokens, answer.usage.output_tokens) : undefined),
};
