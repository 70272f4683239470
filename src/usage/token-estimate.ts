/**
 * What a refine may spend, estimated before it runs: a key's tokensPerDay reserves it
 * (docs/keys-and-scopes.md, "Budgets"). A rewrite is about as long as what it rewrites, and
 * text is about four characters a token, so the text counts once as input and once as
 * output; a judge reads it once more. What the request does not show (the persona's prompt,
 * a repair call) the budget learns from the refines it settles, not from here.
 */
import type { RefineRequest } from '../refine/refine-request.js';
import { RULES_PROVIDER } from '../refine/refine-service.js';

const CHARACTERS_PER_TOKEN = 4;

const tokensOf = (text: string) => Math.ceil(text.length / CHARACTERS_PER_TOKEN);

/** Zero for a refine that calls no model (the `rules` provider without a judge). */
export function estimatedRefineTokens({ provider, content, judge }: Pick<RefineRequest, 'provider' | 'content' | 'judge'>): number {
  return (provider === RULES_PROVIDER ? 0 : 2 * tokensOf(content)) + (judge === undefined ? 0 : tokensOf(content));
}

/** A judge rating `content` (POST /v1/check with a judge). */
export const estimatedJudgeTokens = (content: string): number => tokensOf(content);
