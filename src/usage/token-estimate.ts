/**
 * What a refine may spend, estimated before it runs: a key's tokensPerDay reserves it
 * (docs/keys-and-scopes.md, "Budgets"). A rewrite is about as long as what it rewrites, and
 * text is about four characters a token, so the text counts once as input and once as
 * output; a judge reads it once more. What the request does not show (the persona's prompt,
 * a repair call) the budget learns from the refines it settles, not from here.
 */
import type { ChatRequest } from '../chat/chat-request.js';
import type { RefineRequest } from '../refine/refine-request.js';
import { RULES_PROVIDER } from '../refine/refine-service.js';

const CHARACTERS_PER_TOKEN = 4;

const tokensOf = (text: string) => Math.ceil(text.length / CHARACTERS_PER_TOKEN);

/** Zero for a refine that calls no model (the `rules` provider without a judge). */
export function estimatedRefineTokens({ provider, content, judge }: Pick<RefineRequest, 'provider' | 'content' | 'judge'>): number {
  return (provider === RULES_PROVIDER ? 0 : 2 * tokensOf(content)) + (judge === undefined ? 0 : tokensOf(content));
}

/**
 * A persona drafted from samples (POST /v1/personas/draft): the samples as input, and an answer
 * of at most a draft's attributes (64 KiB is some 16,000 tokens; most drafts are a few hundred).
 */
export const estimatedDraftTokens = (samples: readonly string[]): number => samples.reduce((sum, sample) => sum + tokensOf(sample), 0) + DRAFT_ANSWER_TOKENS;
const DRAFT_ANSWER_TOKENS = 1_000;

/** A judge rating `content` (POST /v1/check with a judge). */
export const estimatedJudgeTokens = (content: string): number => tokensOf(content);

/**
 * A chat completion: what it sends (every message, tool definition and tool call as JSON text,
 * a bound of what the provider is sent) as input, and as output its `max_completion_tokens`
 * (or `max_tokens`) when set, else as much as it sent. The persona's instructions and a repair
 * call are learnt from settled completions, as for a refine.
 */
export function estimatedChatTokens({ messages, tools, max_tokens, max_completion_tokens }: Pick<ChatRequest, 'messages' | 'tools' | 'max_tokens' | 'max_completion_tokens'>): number {
  const input = tokensOf(JSON.stringify(messages)) + (tools ? tokensOf(JSON.stringify(tools)) : 0);
  return input + (max_completion_tokens ?? max_tokens ?? input);
}
