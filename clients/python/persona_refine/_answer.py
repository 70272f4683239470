"""One HTTP answer as a body or an ApiError: read within a byte cap, redirects refused, the body
checked to be the JSON the call expects. Whatever the server (or something pretending to be it)
sends, the caller gets the value or an ApiError."""
import json
from email.message import Message
from typing import Any, Iterable, Optional, Protocol


from ._errors import AnswerTooLargeError, ApiError, RedirectError, error_for_status
from ._retry import parse_retry_after

#: 64 MiB: well above the largest answer the service sends (an account's whole persona list).
DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024
_CHUNK = 64 * 1024


class Readable(Protocol):
    def read(self, amt: int) -> bytes: ...


def request_id_of(headers: Message) -> Optional[str]:
    value = headers.get("x-request-id")
    return value if isinstance(value, str) else None


def read_capped(response: Readable, headers: Message, status: int, limit_bytes: int) -> bytes:
    """The body, at most ``limit_bytes`` of it: past that (at most limit+1 bytes read) reading
    stops and the error says so; the caller closes the connection."""
    too_large = AnswerTooLargeError(status, f"the HTTP {status} answer", limit_bytes, request_id_of(headers))
    declared = headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit_bytes:
        raise too_large
    chunks = []
    remaining = limit_bytes + 1
    while remaining > 0:
        chunk = response.read(min(_CHUNK, remaining))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    if remaining <= 0:
        raise too_large
    return b"".join(chunks)


def redirect_error(status: int, headers: Message) -> RedirectError:
    return RedirectError(status, headers.get("location"), request_id_of(headers))


def error_from_answer(status: int, reason: str, headers: Message, body: bytes, secrets: Iterable[str]) -> ApiError:
    message = f"HTTP {status} {reason}".strip()
    try:
        parsed = json.loads(body.decode("utf-8", errors="replace"))
    except ValueError:
        parsed = None  # not our JSON error body (a proxy's HTML page): the status line is the message
    if isinstance(parsed, dict):
        nested = parsed.get("error")
        # The OpenAI-compatible routes answer OpenAI's `{ error: { message } }`.
        if isinstance(parsed.get("message"), str):
            message = parsed["message"]
        elif isinstance(nested, dict) and isinstance(nested.get("message"), str):
            message = nested["message"]
    message = scrub(message, secrets)
    from_provider = headers.get("x-error-source") == "provider" or message.startswith('provider "')
    return error_for_status(
        status,
        message,
        request_id_of(headers),
        source="provider" if from_provider else "service",
        retry_after=parse_retry_after(headers.get("retry-after")),
    )


def parse_body(status: int, headers: Message, body: bytes, expected: str) -> Any:
    """A 2xx body as ``expected`` (``object``, ``array`` or ``none``), or an ApiError saying what came."""
    if expected == "none":
        return None

    def wrong(detail: str) -> ApiError:
        return ApiError(status, f"HTTP {status} answer {detail}", request_id_of(headers))

    text = body.decode("utf-8", errors="replace")
    if text.strip() == "":
        raise wrong(f"is empty; expected a JSON {expected}")
    try:
        value = json.loads(text)
    except ValueError:
        raise wrong("is not valid JSON") from None
    fits = isinstance(value, list) if expected == "array" else isinstance(value, dict)
    if not fits:
        raise wrong(f"is {type(value).__name__}; expected a JSON {expected}")
    return value


def scrub(text: str, secrets: Iterable[str]) -> str:
    """A message from elsewhere (a server, a socket) with every key this call sent taken out."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    return text
