"""Checks a webhook delivery in the receiver as the Standard Webhooks specification describes:
``webhook-signature`` holds one or more ``v1,<base64>`` HMAC-SHA256 signatures of
``{webhook-id}.{webhook-timestamp}.{body}`` under the secret's decoded bytes, and the timestamp
must be recent, so a captured delivery cannot be replayed later."""
import base64
import binascii
import datetime
import hashlib
import hmac
import json
import re
import time
from typing import Iterable, List, Optional, Protocol, Tuple, Union

from .types import WebhookEvent

DEFAULT_WEBHOOK_TOLERANCE = 5 * 60

_SECRET_PREFIX = "whsec_"
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


class SupportsHeaderItems(Protocol):
    """What holds a request's headers: a dict, http.server's ``self.headers``, most frameworks' headers."""

    def items(self) -> Iterable[Tuple[str, str]]: ...


class WebhookVerificationError(Exception):
    """The delivery did not verify: answer it with a 4xx and do not act on it. ``reason`` says
    why, for a receiver that answers or logs differently per cause: ``missing-header``,
    ``invalid-header``, ``timestamp``, ``signature`` or ``body``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"WebhookVerificationError(reason={self.reason!r}, message={self.message!r})"


def verify_webhook(
    secret: str,
    headers: SupportsHeaderItems,
    body: Union[bytes, str],
    *,
    tolerance: int = DEFAULT_WEBHOOK_TOLERANCE,
    now: Optional[datetime.datetime] = None,
) -> WebhookEvent:
    """The event of a delivery whose signature is the endpoint's. ``body`` must be the request's
    raw body as received (its bytes, or that text): JSON parsed and serialized again differs in
    spacing or key order and will not verify. ``secret`` is the endpoint's ``whsec_…`` secret;
    during a rotation's 24-hour grace a delivery carries two signatures and either secret verifies
    it. ``headers`` may name the headers in any case. ``tolerance`` is how far, in seconds,
    ``webhook-timestamp`` may be from ``now`` (default: this machine's clock) either way.

    Raises WebhookVerificationError for a missing or malformed header, a timestamp outside the
    tolerance, no matching signature, or a signed body that is not an event; ValueError for a
    secret that is not ``whsec_<base64>``."""
    key = _secret_bytes(secret)
    msg_id = _required(headers, "webhook-id")
    timestamp = _required(headers, "webhook-timestamp")
    signatures = _required(headers, "webhook-signature")
    _check_timestamp(timestamp, tolerance, now)
    # Space-separated; a trailing comma is dropped, as a repeated header is joined with ", ".
    candidates = [part[3:].rstrip(",") for part in signatures.split() if part.startswith("v1,")]
    if not candidates:
        raise WebhookVerificationError("invalid-header", 'the webhook-signature header holds no "v1,<base64>" signature')
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{timestamp}.".encode("utf-8") + raw, hashlib.sha256).digest())
    # Every candidate is compared, in constant time: how long it takes says nothing of which or where.
    matches = [hmac.compare_digest(candidate.encode("utf-8"), expected) for candidate in candidates]
    if not any(matches):
        raise WebhookVerificationError(
            "signature",
            "no signature in webhook-signature matches: the body is not the raw one received (re-serialized JSON does not verify), "
            "it was changed, or the secret is not this endpoint's",
        )
    return _event(msg_id, raw)


def _secret_bytes(secret: str) -> bytes:
    encoded = secret[len(_SECRET_PREFIX):] if isinstance(secret, str) and secret.startswith(_SECRET_PREFIX) else ""
    # The secret itself is never part of a message: it would end up in a receiver's logs.
    problem = ValueError('verify_webhook: the secret must be the endpoint\'s "whsec_<base64>" secret')
    if not _BASE64.fullmatch(encoded) or len(encoded) % 4 != 0:
        raise problem
    try:
        return base64.b64decode(encoded, validate=True)
    except binascii.Error:
        raise problem from None


def _required(headers: SupportsHeaderItems, name: str) -> str:
    values: List[str] = [str(value) for key, value in headers.items() if key.lower() == name and value is not None]
    # Repeated, signatures are all candidates; a repeated id or timestamp fails to verify.
    value = ", ".join(values).strip()
    if not value:
        raise WebhookVerificationError("missing-header", f"the {name} header is missing: not a signed webhook delivery")
    return value


def _check_timestamp(timestamp: str, tolerance: int, now: Optional[datetime.datetime]) -> None:
    if not re.fullmatch(r"[0-9]{1,15}", timestamp):
        raise WebhookVerificationError("invalid-header", f"the webhook-timestamp header is not a Unix time in seconds: {timestamp[:40]!r}")
    current = int(now.timestamp() if now is not None else time.time())
    skew = current - int(timestamp)
    if skew > tolerance:
        raise WebhookVerificationError(
            "timestamp", f"the webhook-timestamp is {skew} s old, more than the {tolerance} s tolerance: a replayed delivery, or this machine's clock is wrong"
        )
    if -skew > tolerance:
        raise WebhookVerificationError(
            "timestamp", f"the webhook-timestamp is {-skew} s in the future, more than the {tolerance} s tolerance: this machine's clock is wrong"
        )


def _event(msg_id: str, raw: bytes) -> WebhookEvent:
    try:
        event = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise WebhookVerificationError("body", "the signed body is not UTF-8 JSON") from None
    if not isinstance(event, dict):
        event = {}
    kind, timestamp, data = event.get("type"), event.get("timestamp"), event.get("data")
    if not isinstance(kind, str) or not isinstance(timestamp, str) or not isinstance(data, dict):
        raise WebhookVerificationError("body", 'the signed body is not an event: {"type", "timestamp", "data"} expected')
    return WebhookEvent(id=msg_id, type=kind, timestamp=timestamp, data=data)
