/** The provider layer's public surface: what the refine use case and the server need. */
export { findProviderConfigProblem } from './provider-config.js';
export { createProviderRegistry, type ProviderAnswer, type ProviderBudget, type ProviderCall, type ProviderRegistry, type ProviderRegistryOptions, type ProviderTextStream } from './registry.js';
export type { AnswerPiece } from './streamed-attempt.js';
export { closeTransportPools, warmTransport } from './wire/transport.js';
export {
  type Conversation, type ConversationMessage, type FinishReason, type ResponseFormat, type Sampling, singleTurn,
  type ToolCall, ToolCallAssembly, type ToolCallDelta, type ToolChoice, type ToolDefinition,
} from './wire/conversation.js';
export type { StructuredOutput, TokenUsage } from './wire/wire-format.js';
