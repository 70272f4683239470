import type { ProviderDefinition } from './provider-definition.js';
import { chatCompletions } from './wire/chat-completions.js';

/** xAI chat completions (`POST /v1/chat/completions`, Bearer key). */
export const xai: ProviderDefinition = {
  name: 'xAI',
  defaultBaseUrl: 'https://api.x.ai/v1',
  // Non-reasoning: a rewrite gains nothing from thinking tokens but would pay their latency.
  defaultModel: 'grok-4-1-fast-non-reasoning',
  wire: chatCompletions,
  // xAI answers a bad key with 400 {"code":"Client specified an invalid argument","error":"Incorrect API key provided: …"}.
  rejectsKey: (status, body) => status === 400 && /incorrect api key/i.test(JSON.stringify(body ?? null)),
};
