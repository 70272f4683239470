import { isRecord, tokenUsage, USER_AGENT, type WireFormat } from './wire-format.js';

/**
 * The most output tokens a Claude model accepts. Anthropic requires
 * `max_tokens` and refuses a value above the model's limit; unknown models get
 * 8,192, which every Claude model since 3.5 accepts.
 */
function modelOutputLimit(model: string): number {
  if (/claude-3-(haiku|sonnet|opus)-/.test(model)) return 4_096;
  if (model.includes('claude-3-5-')) return 8_192;
  if (/claude-opus-4-(0|1|2025)/.test(model) || /claude-opus-4$/.test(model)) return 32_000;
  if (/claude-3-7-|claude-(sonnet|haiku|opus)-[4-9]/.test(model)) return 64_000;
  return 8_192;
}

/**
 * A rewrite is about as long as its input: allow twice the input's
 * characters-per-two tokens, at least 1,024, at most what the model takes.
 */
const maxTokens = (model: string, user: string) => Math.min(modelOutputLimit(model), Math.max(1_024, Math.ceil(user.length / 2)));

/** Anthropic Messages API: `POST /messages`, `x-api-key`, `anthropic-version`, system as a top-level field. */
export const anthropicMessages: WireFormat = {
  request: (apiKey, model, system, user) => ({
    path: '/messages',
    headers: {
      'x-api-key': apiKey,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
    },
    body: JSON.stringify({
      model,
      max_tokens: maxTokens(model, user),
      system,
      messages: [{ role: 'user', content: user }],
    }),
  }),
  text(answer) {
    if (!isRecord(answer) || !Array.isArray(answer.content)) return undefined;
    let text = '';
    for (const block of answer.content) {
      if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') text += block.text;
    }
    return text;
  },
  usage: (answer) => (isRecord(answer) && isRecord(answer.usage) ? anthropicUsage(answer.usage) : undefined),
};

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; they are input all
 * the same, so they are added (the other APIs' input counts include cached tokens).
 */
export function anthropicUsage(usage: Record<string, unknown>, outputTokens: unknown = usage.output_tokens) {
  const cached = (n: unknown) => (typeof n === 'number' ? n : 0);
  const input = typeof usage.input_tokens === 'number' ? usage.input_tokens + cached(usage.cache_creation_input_tokens) + cached(usage.cache_read_input_tokens) : undefined;
  return tokenUsage(input, outputTokens);
}
