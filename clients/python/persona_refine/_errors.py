"""Every failure of a call is an ApiError: one subclass per status family, so callers can
``except NotFoundError`` instead of comparing numbers, and ``status``, ``message`` and
``request_id`` on all of them."""
import re
from typing import Dict, Optional, Type


class ApiError(Exception):
    """The service answered with a non-2xx status, an answer that is not what the call expects,
    or (the subclasses with status 0) no answer at all."""

    #: ``"service"``, or ``"provider"`` when the LLM provider the service called failed.
    source: str
    #: Seconds the service asked to wait (``Retry-After``), when it did.
    retry_after: Optional[float]

    def __init__(
        self,
        status: int,
        message: str,
        request_id: Optional[str] = None,
        *,
        source: str = "service",
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.request_id = request_id
        self.source = source
        self.retry_after = retry_after

    def __str__(self) -> str:
        parts = [f"HTTP {self.status}"] if self.status else []
        if self.request_id:
            parts.append(f"request {self.request_id}")
        return f"{self.message} ({', '.join(parts)})" if parts else self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, message={self.message!r}, request_id={self.request_id!r})"


class BadRequestError(ApiError):
    """400 or 422: the request itself is wrong; sending it again will not help."""


class AuthenticationError(ApiError):
    """401: the API key is missing, unknown, revoked or expired."""


class PermissionError(ApiError):  # noqa: A001 - the contract's name, shadowing the builtin inside this package only
    """403: the key is valid but lacks the scope this call needs (``scope``)."""

    def __init__(
        self,
        status: int,
        message: str,
        request_id: Optional[str] = None,
        *,
        source: str = "service",
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(status, message, request_id, source=source, retry_after=retry_after)
        match = re.search(r'lacks the scope "([^"]+)"', message)
        #: The scope the key lacks, when the service named it.
        self.scope: Optional[str] = match.group(1) if match else None


class NotFoundError(ApiError):
    """404: no such persona, version, label, evaluation or key in this account."""


class ConflictError(ApiError):
    """409: the state forbids it (a label gate, a finished run), or a first attempt with the same
    Idempotency-Key is still running (retried automatically)."""


class PreconditionFailedError(ApiError):
    """412: the ``if_match`` ETag is no longer current; re-read, reapply, retry with the new one."""


class RateLimitError(ApiError):
    """429: a rate limit or budget; ``retry_after`` says how long to wait."""


class ProviderError(ApiError):
    """502, 503 or 504: the LLM provider (``source == "provider"``) or the service is unavailable."""


class RedirectError(ApiError):
    """A 3xx: the API never redirects, so ``base_url`` points at something else (a proxy, an
    http→https hop). Never followed: that would resend the keys to wherever it points."""

    def __init__(self, status: int, location: Optional[str], request_id: Optional[str] = None) -> None:
        where = "nowhere" if location is None else repr(location)
        super().__init__(
            status,
            f"persona-refine answered with a redirect to {where}, which the client does not follow; "
            "set base_url to the server's own address",
            request_id,
        )
        self.location = location


class AnswerTooLargeError(ApiError):
    """An answer (or one event of a stream) larger than the client reads: it stops reading rather
    than let a broken or hostile server fill the memory."""

    def __init__(self, status: int, what: str, limit_bytes: int, request_id: Optional[str] = None) -> None:
        super().__init__(status, f"{what} is larger than the {limit_bytes} bytes the client reads", request_id)
        self.limit_bytes = limit_bytes


class APIConnectionError(ApiError):
    """No answer: connection refused or reset, DNS failure, a stream cut before its end."""

    def __init__(self, message: str, request_id: Optional[str] = None) -> None:
        super().__init__(0, message, request_id)


class APITimeoutError(APIConnectionError):
    """The call's ``timeout`` ran out, retries and the waits between them included."""


_BY_STATUS: Dict[int, Type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionError,
    404: NotFoundError,
    409: ConflictError,
    412: PreconditionFailedError,
    422: BadRequestError,
    429: RateLimitError,
    502: ProviderError,
    503: ProviderError,
    504: ProviderError,
}


def error_for_status(
    status: int, message: str, request_id: Optional[str], *, source: str = "service", retry_after: Optional[float] = None
) -> ApiError:
    """The ApiError subclass of ``status``; ApiError itself for a status of no family."""
    cls = _BY_STATUS.get(status, ApiError)
    return cls(status, message, request_id, source=source, retry_after=retry_after)
