import { isRecord, tokenUsage, USER_AGENT, type WireFormat } from './wire-format.js';

/** OpenAI-style Chat Completions (`POST /chat/completions`, Bearer key): Groq, DeepSeek, xAI, Ollama, vLLM… */
export const chatCompletions: WireFormat = {
  request: (apiKey, model, system, user) => ({
    path: '/chat/completions',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify({
      model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    }),
  }),
  text(answer) {
    if (!isRecord(answer) || !Array.isArray(answer.choices)) return undefined;
    const [choice] = answer.choices;
    if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
    const { content } = choice.message;
    if (content === null) return '';
    return typeof content === 'string' ? content : undefined;
  },
  usage: (answer) =>
    isRecord(answer) && isRecord(answer.usage) ? tokenUsage(answer.usage.prompt_tokens, answer.usage.completion_tokens) : undefined,
};
