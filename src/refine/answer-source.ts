/**
 * One provider's answer as the run reads it, whichever way it asked: its text and tool calls
 * in pieces (one piece of text and the whole calls when collected, as they arrive when
 * streamed), the attempts that failed before it, and its usage and finish reason once the
 * pieces ended. Both ways give the run the same pieces to go through, so they cannot drift.
 */
import type { AnswerPiece, FinishReason, ProviderRegistry, TokenUsage } from '../providers/index.js';
import type { StartProvider } from './fallback-chain.js';

export interface AnswerSource {
  pieces: AsyncIterable<AnswerPiece> | Iterable<AnswerPiece>;
  failedAttempts: number;
  usage(): Partial<TokenUsage> | undefined;
  finishReason(): FinishReason | undefined;
}

/** Starts a provider of the chain: `generate` when collecting, `stream` when streaming. */
export const answerSource = (providers: ProviderRegistry, mode: 'stream' | 'collect'): StartProvider<AnswerSource> =>
  async (link, call, budget) => {
    if (mode === 'collect') {
      const answer = await providers.generate(link.provider, call, budget);
      const toolCalls = answer.toolCalls.map((toolCall, index) => ({ index, ...toolCall }));
      return { pieces: [answer.text, ...toolCalls], failedAttempts: answer.failedAttempts, usage: () => answer.usage, finishReason: () => answer.finishReason };
    }
    const stream = await providers.stream(link.provider, call, budget);
    return { pieces: stream.pieces, failedAttempts: stream.failedAttempts, usage: () => stream.usage(), finishReason: () => stream.finishReason() };
  };
