export { PersonaRefine, type PersonaRefineOptions, type RefineOptions, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './client.js';
export { AnswerTooLargeError, PermissionError, PersonaRefineError, PreconditionFailedError, type ErrorKind, type ErrorSource } from './errors.js';
export type { RefineStream, RefineStreamInput, RefineStreamResult } from './refine-stream.js';
export type { ChatPersonaHeaders, ChatResult } from './chat.js';
export type { ChatStream, ChatStreamResult } from './chat-stream.js';
export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatContent,
  ChatFinishReason,
  ChatInput,
  ChatMessage,
  ChatOptions,
  ChatResponseFormat,
  ChatStreamInput,
  ChatTool,
  ChatToolCall,
  ChatToolCallDelta,
  ChatToolChoice,
  ChatUsage,
} from './chat-types.js';
export type { Personas, ConditionalOptions } from './personas.js';
export type { PersonaLabelsApi, PersonaVersions } from './persona-history.js';
export type { Audit, AuditPage, AuditQuery } from './audit.js';
export type { Usage } from './usage.js';
export type { FeedbackApi, FeedbackListQuery } from './feedback.js';
export type { Retention, ReviewListQuery, Reviews } from './review-queue.js';
export type { Keys } from './keys.js';
export type { WebhookDeliveryPage, WebhookDeliveryQuery, Webhooks } from './webhooks.js';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
  verifyWebhook,
  WebhookVerificationError,
} from './webhook-verify.js';
export { WEBHOOK_EVENT_TYPES } from './webhook-events.js';
export type {
  BudgetThresholdData,
  EvalEventData,
  EvalFailedData,
  KeyEventData,
  LabelMovedData,
  LabelRefusedData,
  PersonaEventData,
  WebhookEvent,
  WebhookEventData,
  WebhookTestData,
} from './webhook-events.js';
export type { EvalListQuery, EvalPage, Evaluations } from './evals.js';
export type { PersonaSamples } from './persona-samples.js';
export type { CallOptions, PostOptions, RetryEvent } from './transport.js';
export type {
  ApiKey,
  CreateKeyInput,
  CurrentKey,
  EvalComparison,
  EvalEvent,
  EvalResult,
  EvalRun,
  EvalRunWithResults,
  EvalSample,
  EvalSampleInput,
  EvalSampleSet,
  EvalSummary,
  StartEvalInput,
  IssuedApiKey,
  LabelPolicies,
  LabelPolicy,
  LabelPolicyInput,
  Scope,
  AuditEvent,
  CheckFinding,
  CheckInput,
  CheckResult,
  CreatePersonaInput,
  DraftPersonaInput,
  ErrorBody,
  Fallback,
  Feedback,
  FeedbackInput,
  FeedbackRating,
  JudgeVerdict,
  Persona,
  PersonaAttributes,
  PersonaDraft,
  PersonaLabels,
  PersonaVariant,
  PersonaVariantQuery,
  PersonaVersion,
  PersonaWithEtag,
  Provider,
  QualityQuery,
  QualityRow,
  RefineInput,
  RefineResult,
  ResolveReviewInput,
  RetentionPolicy,
  Review,
  ReviewStatus,
  Severity,
  UpdatePersonaInput,
  UsageQuery,
  UsageRow,
  CreateWebhookInput,
  UpdateWebhookInput,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEventType,
  WebhookSubscription,
  WebhookWithSecret,
} from './types.js';
export type { components, paths } from './generated/openapi.js';
