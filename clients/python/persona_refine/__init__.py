"""Python client of persona-refine: store personas, and have your LLM provider rewrite text in a
persona's voice with your own provider key; manage webhooks and verify their deliveries.
Standard library only."""
from ._client import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, PersonaRefine
from ._errors import (
    AnswerTooLargeError,
    ApiError,
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionError,
    PreconditionFailedError,
    ProviderError,
    RateLimitError,
    RedirectError,
)
from ._stream import RefineStream
from ._webhook_verify import DEFAULT_WEBHOOK_TOLERANCE, WebhookVerificationError, verify_webhook
from .types import (
    ApiKey,
    CheckResult,
    CheckViolation,
    CheckWarning,
    DraftWarning,
    EvalRun,
    Fallback,
    Feedback,
    FeedbackCounts,
    IssuedApiKey,
    Judge,
    KeyLimits,
    Persona,
    PersonaDraft,
    PersonaVariant,
    PersonaVersion,
    QualityRow,
    RefineDelta,
    RefineResult,
    RetentionPolicy,
    Review,
    TokenCounts,
    TokenUsage,
    UsageRow,
    Webhook,
    WebhookDelivery,
    WebhookEvent,
    WebhookWithSecret,
)

__version__ = "1.0.0"

__all__ = [
    "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT", "PersonaRefine", "RefineStream",
    "ApiError", "AnswerTooLargeError", "APIConnectionError", "APITimeoutError", "AuthenticationError", "BadRequestError",
    "ConflictError", "NotFoundError", "PermissionError", "PreconditionFailedError", "ProviderError", "RateLimitError",
    "RedirectError",
    "ApiKey", "CheckResult", "CheckViolation", "CheckWarning", "DraftWarning", "EvalRun", "Fallback", "Feedback", "FeedbackCounts", "IssuedApiKey",
    "Judge", "KeyLimits", "Persona", "PersonaDraft", "PersonaVariant", "PersonaVersion", "QualityRow", "RefineDelta", "RefineResult", "RetentionPolicy",
    "Review", "TokenCounts", "TokenUsage", "UsageRow", "Webhook", "WebhookDelivery", "WebhookEvent", "WebhookWithSecret",
    "DEFAULT_WEBHOOK_TOLERANCE", "WebhookVerificationError", "verify_webhook",
]
