/**
 * A chat completion's answer in OpenAI's shapes: the whole completion, and the chunks of a
 * streamed one. The headers are the refine's (refine-answer.ts) plus `X-Persona-Rules`.
 */
import type { RefineRun, RunEnd } from '../refine/refine-run.js';
import type { ChatCompletion, ChatCompletionChunk } from '../schemas/chat.js';
import type { UsageTally } from '../usage/usage-tally.js';
import { answerHeaders } from './refine-answer.js';

/** What every chunk and the completion share. */
export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

export const completionIdentity = (requestId: string, run: Pick<RefineRun, 'provider' | 'model'>, now = Date.now()): CompletionIdentity => ({
  id: `chatcmpl-${requestId}`,
  created: Math.floor(now / 1000),
  model: run.model === undefined ? run.provider : `${run.provider}/${run.model}`,
});

/** Tokens the providers reported, summed over every call (`X-Usage` says when one did not report them). */
export function chatUsage(usage: UsageTally): ChatCompletion['usage'] {
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}

const toolCallsOf = (end: Pick<RunEnd, 'toolCalls'>) =>
  end.toolCalls.map(({ id, name, arguments: args }) => ({ id, type: 'function' as const, function: { name, arguments: args } }));

export function chatCompletion(identity: CompletionIdentity, end: RunEnd): ChatCompletion {
  const toolCalls = toolCallsOf(end);
  return {
    ...identity,
    object: 'chat.completion',
    choices: [{
      index: 0,
      message: { role: 'assistant', content: end.response === '' && toolCalls.length > 0 ? null : end.response, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
      finish_reason: end.finishReason,
    }],
    usage: chatUsage(end.usage),
  };
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

export const chunk = (identity: CompletionIdentity, delta: Delta, finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk => ({
  ...identity, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }],
});

/** The chunks a run's end adds after its text: its tool calls (all in one), then why it stopped. */
export function endChunks(identity: CompletionIdentity, end: RunEnd): ChatCompletionChunk[] {
  const toolCalls = toolCallsOf(end);
  return [
    ...(toolCalls.length > 0 ? [chunk(identity, { tool_calls: toolCalls.map((call, index) => ({ index, ...call })) })] : []),
    chunk(identity, {}, end.finishReason),
  ];
}

/** OpenAI's usage chunk (`stream_options.include_usage`): no choices, the whole usage. */
export const usageChunk = (identity: CompletionIdentity, end: RunEnd): ChatCompletionChunk => ({
  ...identity, object: 'chat.completion.chunk', choices: [], usage: chatUsage(end.usage),
});

/** The refine's answer headers, and whether the persona's rules were applied to the text. */
export const chatAnswerHeaders = (run: RefineRun, end: RunEnd): Record<string, string> => ({
  ...answerHeaders(run, end),
  'x-persona-rules': end.rules,
});
