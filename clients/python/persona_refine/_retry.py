"""When a failed attempt is worth repeating, and how long to wait first (as the TypeScript SDK)."""
import email.utils
import random
import re
import time
from typing import Callable, Optional

from ._errors import ApiError, APIConnectionError, APITimeoutError

BASE_DELAY = 0.5
MAX_DELAY = 8.0


def is_retryable(error: ApiError, sent_idempotency_key: bool) -> bool:
    """429 and 503 say "come back later"; 502 is a provider hiccup; a dropped connection may not
    have reached the server at all. 504 is worth repeating too: a gateway or load balancer in front
    of the service answers it for an instance that went away or a slow hop, and the service never
    stores a 5xx under an Idempotency-Key, so the repeat really runs; the call's ``timeout`` still
    bounds the total wait. Its cost: a provider that timed out once may time out again, another
    full provider timeout, which ``max_retries=0`` avoids. 409 only means "your first attempt with
    this Idempotency-Key is still running", worth waiting for when one was sent. Everything else
    (other 4xx, 500) would fail the same way again."""
    if isinstance(error, APITimeoutError):
        return False
    if isinstance(error, APIConnectionError):
        return True
    return error.status in (429, 502, 503, 504) or (error.status == 409 and sent_idempotency_key)


def parse_retry_after(header: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date."""
    if header is None or header.strip() == "":
        return None
    value = header.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        date = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if date is None:
        return None
    return max(0.0, date.timestamp() - (time.time() if now is None else now))


def retry_delay(retry: int, retry_after: Optional[float], rand: Callable[[], float] = random.random) -> float:
    """Exponential backoff with "equal jitter" (half fixed, half random): ``min(8, 0.5 * 2**retry)``
    seconds, of which the second half is random, so clients failing together spread out yet each
    waits a meaningful minimum. A server's ``Retry-After`` is a floor: it knows better."""
    exponential = min(MAX_DELAY, BASE_DELAY * (1 << min(retry, 16)))
    jittered = exponential / 2 + rand() * (exponential / 2)
    return max(jittered, retry_after or 0.0)
