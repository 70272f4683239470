"""The API's JSON and headers as the dataclasses of ``types``. A body of another shape (a broken
or hostile server) is an ApiError naming the field, never a KeyError or TypeError."""
import urllib.parse
from email.message import Message
from typing import Any, Callable, Dict, List, Optional, Tuple, Type, TypeVar

from ._answer import request_id_of
from ._errors import ApiError
from .types import (
    ApiKey, CheckResult, CheckViolation, CheckWarning, DraftWarning, EvalRun, Feedback, FeedbackCounts, IssuedApiKey, KeyLimits, Persona,
    PersonaDraft, PersonaVariant, PersonaVersion, QualityRow, RefineResult, RetentionPolicy, Review, TokenCounts, TokenUsage, UsageRow, Webhook, WebhookDelivery,
    WebhookWithSecret,
)

T = TypeVar("T")
_NONE = type(None)


class ShapeError(Exception):
    """A field of the answer is missing or of another type; the transport turns it into an ApiError."""


def field_of(body: Any, name: str, kind: Tuple[Type[Any], ...]) -> Any:
    if not isinstance(body, dict) or name not in body and _NONE not in kind:
        raise ShapeError(f'has no "{name}"')
    value = body.get(name)
    # JSON true is no number: bool is an int subclass in Python.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in kind):
        raise ShapeError(f'has a "{name}" that is not {" or ".join(k.__name__ for k in kind)}')
    return value


def shaped(status: int, headers: Message, parse: Callable[[Any], T], body: Any) -> T:
    try:
        return parse(body)
    except ShapeError as error:
        raise ApiError(status, f"HTTP {status} answer {error}", request_id_of(headers)) from None


def persona(body: Any, headers: Optional[Message] = None) -> Persona:
    etag = headers.get("etag") if headers is not None else None
    return Persona(
        field_of(body, "id", (str,)), field_of(body, "name", (str,)), field_of(body, "attributes", (dict,)), etag or ""
    )


def persona_version(body: Any) -> PersonaVersion:
    return PersonaVersion(
        field_of(body, "version", (int,)), field_of(body, "name", (str,)), field_of(body, "attributes", (dict,)),
        field_of(body, "createdAt", (str,)), field_of(body, "createdBy", (str, _NONE)),
    )


def persona_variant(body: Any) -> PersonaVariant:
    return PersonaVariant(
        field_of(body, "id", (str,)), field_of(body, "name", (str,)), field_of(body, "version", (int,)),
        field_of(body, "variant", (str,)), field_of(body, "attributes", (dict,)),
    )


def persona_draft(body: Any) -> PersonaDraft:
    evidence = field_of(body, "evidence", (dict,))
    return PersonaDraft(
        name=field_of(body, "name", (str,)),
        attributes=field_of(body, "attributes", (dict,)),
        evidence={name: quote for name, quote in evidence.items() if isinstance(quote, str)},
        warnings=[
            DraftWarning(field_of(w, "message", (str,)), field_of(w, "attribute", (str, _NONE)))
            for w in (field_of(body, "warnings", (list, _NONE)) or [])
        ],
    )


def labels(body: Any) -> Dict[str, int]:
    return {name: field_of(body, name, (int,)) for name in body}


def _pairs(header: Optional[str]) -> List[Tuple[str, str]]:
    pairs = []
    for pair in (header or "").split(","):
        name, _, value = pair.partition("=")
        if name.strip() and value.strip():
            pairs.append((name.strip(), value.strip()))
    return pairs


def _int_or_none(value: Optional[str]) -> Optional[int]:
    return int(value) if value is not None and value.strip().isdigit() else None


def violations_header(header: Optional[str]) -> Dict[str, int]:
    """``avoid=1,maxWords=1`` → ``{"avoid": 1, "maxWords": 1}``."""
    return {name: int(value) for name, value in _pairs(header) if value.isdigit()}


def usage_header(header: Optional[str]) -> TokenUsage:
    """``input_tokens=12, output_tokens=8, provider_calls=1``; absent members stay None."""
    members = {name: int(value) for name, value in _pairs(header) if value.isdigit()}
    return TokenUsage(members.get("provider_calls", 0), members.get("input_tokens"), members.get("output_tokens"))


def usage_json(value: Any) -> TokenUsage:
    if not isinstance(value, dict):
        return TokenUsage()
    def count(name: str) -> Optional[int]:
        member = value.get(name)
        return member if isinstance(member, int) and not isinstance(member, bool) else None
    return TokenUsage(count("providerCalls") or 0, count("inputTokens"), count("outputTokens"))


def provider_header(header: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """``anthropic/claude-haiku-4-5`` → ``("anthropic", "claude-haiku-4-5")``; models may hold ``/``."""
    if not header:
        return None, None
    provider, slash, model = header.partition("/")
    return provider, (model if slash else None)


def ratings_header(header: Optional[str]) -> Optional[Dict[str, int]]:
    if header is None:
        return None
    return {urllib.parse.unquote(name): int(value) for name, value in _pairs(header) if value in ("1", "2", "3", "4", "5")}


def _decoded(header: Optional[str]) -> Optional[str]:
    return None if header is None else urllib.parse.unquote(header)


def refine_result(body: Any, headers: Message) -> RefineResult:
    provider, model = provider_header(headers.get("x-provider"))
    score = _int_or_none(headers.get("x-persona-score"))
    # Both judge headers are percent-encoded past printable ASCII, as the stream's JSON is not.
    error, warning = (_decoded(headers.get(name)) for name in ("x-persona-judge-error", "x-persona-judge-warning"))
    ratings = ratings_header(headers.get("x-persona-ratings"))
    return RefineResult(
        response=field_of(body, "response", (str,)),
        violations=violations_header(headers.get("x-persona-violations")),
        score=score if score is not None and score <= 100 else None,
        persona_version=_int_or_none(headers.get("x-persona-version")) or 0,
        usage=usage_header(headers.get("x-usage")),
        request_id=request_id_of(headers),
        provider=provider,
        model=model,
        # Judged with nothing to rate sends no ratings header: {} as the stream's `ratings: []` reads.
        ratings={} if ratings is None and warning is not None else ratings,
        judge_error=error,
        judge_warning=warning,
        persona_variant=headers.get("x-persona-variant"),
    )


def stream_result(done: Any, headers: Message) -> RefineResult:
    """A ``done`` event, with what the stream's headers say."""
    provider, model = provider_header(headers.get("x-provider"))
    judge = done.get("judge") if isinstance(done.get("judge"), dict) else None
    ratings = judge.get("ratings") if judge is not None else None
    score = done.get("score")
    violations = done.get("violations")
    return RefineResult(
        response=field_of(done, "response", (str,)),
        violations={k: v for k, v in violations.items() if isinstance(v, int)} if isinstance(violations, dict) else {},
        score=score if isinstance(score, int) and not isinstance(score, bool) else None,
        persona_version=_int_or_none(headers.get("x-persona-version")) or 0,
        usage=usage_json(done.get("usage")),
        request_id=request_id_of(headers),
        provider=provider,
        model=model,
        ratings=None if not isinstance(ratings, list) else {
            r["attribute"]: r["rating"] for r in ratings if isinstance(r, dict) and isinstance(r.get("attribute"), str) and isinstance(r.get("rating"), int)
        },
        judge_error=judge.get("error") if judge is not None and isinstance(judge.get("error"), str) else None,
        judge_warning=judge.get("warning") if judge is not None and isinstance(judge.get("warning"), str) else None,
        replaced=done.get("replaced") is True,
        persona_variant=headers.get("x-persona-variant"),
    )


def _violations(body: Any) -> List[CheckViolation]:
    return [
        CheckViolation(field_of(v, "rule", (str,)), field_of(v, "severity", (str,)), field_of(v, "message", (str,)),
                       field_of(v, "start", (int,)), field_of(v, "end", (int,)))
        for v in field_of(body, "violations", (list,))
    ]


def check_result(body: Any, headers: Message) -> CheckResult:
    violations = _violations(body)
    warnings = [CheckWarning(field_of(w, "attribute", (str,)), field_of(w, "message", (str,))) for w in field_of(body, "warnings", (list,))]
    return CheckResult(
        passed=field_of(body, "passed", (bool,)),
        score=field_of(body, "score", (int,)),
        scores=field_of(body, "scores", (dict,)),
        violations=violations,
        warnings=warnings,
        persona_version=_int_or_none(headers.get("x-persona-version")) or 0,
        request_id=request_id_of(headers),
        judge=body.get("judge") if isinstance(body.get("judge"), dict) else None,
        persona_variant=headers.get("x-persona-variant"),
    )


def eval_run(body: Any) -> EvalRun:
    results = body.get("results") if isinstance(body, dict) else None
    return EvalRun(
        id=field_of(body, "id", (str,)), persona_id=field_of(body, "personaId", (str,)),
        version=field_of(body, "version", (int,)), status=field_of(body, "status", (str,)),
        created_at=field_of(body, "createdAt", (str,)), finished_at=field_of(body, "finishedAt", (str, _NONE)),
        provider=field_of(body, "provider", (str,)), model=field_of(body, "model", (str, _NONE)),
        concurrency=field_of(body, "concurrency", (int,)), progress=field_of(body, "progress", (dict,)),
        summary=field_of(body, "summary", (dict,)), error=field_of(body, "error", (str, _NONE)),
        judge=field_of(body, "judge", (dict, _NONE)),
        results=[r for r in results if isinstance(r, dict)] if isinstance(results, list) else None,
        variant=field_of(body, "variant", (str, _NONE)),
    )


def _key_fields(body: Any) -> Dict[str, Any]:
    limits = field_of(body, "limits", (dict,))
    return dict(
        id=field_of(body, "id", (str,)), name=field_of(body, "name", (str,)), scopes=field_of(body, "scopes", (list,)),
        prefix=field_of(body, "prefix", (str,)), created_at=field_of(body, "createdAt", (str,)),
        expires_at=field_of(body, "expiresAt", (str, _NONE)),
        limits=KeyLimits(field_of(limits, "tokensPerDay", (int, _NONE)), field_of(limits, "refinesPerMinute", (int, _NONE))),
        previous_secret_expires_at=field_of(body, "previousSecretExpiresAt", (str, _NONE)),
    )


def api_key(body: Any) -> ApiKey:
    return ApiKey(**_key_fields(body))


def issued_key(body: Any) -> IssuedApiKey:
    return IssuedApiKey(**_key_fields(body), secret=field_of(body, "secret", (str,)))


def usage_row(body: Any) -> UsageRow:
    return UsageRow(
        day=field_of(body, "day", (str,)), provider=field_of(body, "provider", (str,)), model=field_of(body, "model", (str, _NONE)),
        endpoint=field_of(body, "endpoint", (str,)), refines=field_of(body, "refines", (int,)),
        failures=field_of(body, "failures", (int,)), cache_hits=field_of(body, "cacheHits", (int,)),
        provider_calls=field_of(body, "providerCalls", (int,)), input_tokens=field_of(body, "inputTokens", (int,)),
        output_tokens=field_of(body, "outputTokens", (int,)), key_id=field_of(body, "keyId", (str, _NONE)),
    )


def _counts(body: Any) -> Dict[str, int]:
    return {name: field_of(body, name, (int,)) for name in body}


def quality_row(body: Any) -> QualityRow:
    feedback = field_of(body, "feedback", (dict,))
    tokens = field_of(body, "tokens", (dict,))
    mean = field_of(body, "meanScore", (int, float, _NONE))
    return QualityRow(
        answers=field_of(body, "answers", (int,)), mean_score=None if mean is None else float(mean),
        below_min_score=field_of(body, "belowMinScore", (int,)), with_required_findings=field_of(body, "withRequiredFindings", (int,)),
        findings=_counts(field_of(body, "findings", (dict,))),
        feedback=FeedbackCounts(field_of(feedback, "up", (int,)), field_of(feedback, "down", (int,))),
        tokens=TokenCounts(field_of(tokens, "input", (int,)), field_of(tokens, "output", (int,))),
        day=field_of(body, "day", (str, _NONE)), version=field_of(body, "version", (int, _NONE)),
    )


def quality_rows(body: Any) -> List[QualityRow]:
    return [quality_row(row) for row in field_of(body, "rows", (list,))]


def feedback(body: Any) -> Feedback:
    return Feedback(
        id=field_of(body, "id", (str,)), request_id=field_of(body, "requestId", (str,)), persona_id=field_of(body, "personaId", (str,)),
        version=field_of(body, "version", (int,)), rating=field_of(body, "rating", (str,)), created_at=field_of(body, "createdAt", (str,)),
        corrected_text=field_of(body, "correctedText", (str, _NONE)), comment=field_of(body, "comment", (str, _NONE)),
    )


def retention_policy(body: Any) -> RetentionPolicy:
    return RetentionPolicy(field_of(body, "keep", (str,)), field_of(body, "days", (int,)))


def review(body: Any) -> Review:
    return Review(
        request_id=field_of(body, "requestId", (str,)), created_at=field_of(body, "createdAt", (str,)),
        version=field_of(body, "version", (int,)), endpoint=field_of(body, "endpoint", (str,)),
        content=field_of(body, "content", (str,)), response=field_of(body, "response", (str,)), score=field_of(body, "score", (int,)),
        violations=_violations(body), status=field_of(body, "status", (str,)),
        feedback=field_of(body, "feedback", (dict, _NONE)), sample_id=field_of(body, "sampleId", (str, _NONE)),
    )


def _webhook_fields(body: Any) -> Dict[str, Any]:
    events = field_of(body, "events", (list,))
    if not all(isinstance(event, str) for event in events):
        raise ShapeError('has an "events" that is not a list of str')
    return dict(
        id=field_of(body, "id", (str,)), url=field_of(body, "url", (str,)), events=events,
        description=field_of(body, "description", (str, _NONE)), created_at=field_of(body, "createdAt", (str,)),
        disabled=field_of(body, "disabled", (bool,)),
    )


def webhook(body: Any) -> Webhook:
    return Webhook(**_webhook_fields(body))


def webhook_with_secret(body: Any) -> WebhookWithSecret:
    return WebhookWithSecret(**_webhook_fields(body), secret=field_of(body, "secret", (str,)))


def webhook_delivery(body: Any) -> WebhookDelivery:
    return WebhookDelivery(
        id=field_of(body, "id", (str,)), event_id=field_of(body, "eventId", (str,)), type=field_of(body, "type", (str,)),
        status=field_of(body, "status", (str,)), attempts=field_of(body, "attempts", (int,)),
        last_status_code=field_of(body, "lastStatusCode", (int, _NONE)), last_error=field_of(body, "lastError", (str, _NONE)),
        next_attempt_at=field_of(body, "nextAttemptAt", (str, _NONE)), created_at=field_of(body, "createdAt", (str,)),
    )
