"""Sends one logical call: auth and JSON, the retry loop, the overall deadline, and the mapping of
every failure to an ApiError. The resources above it only name paths and bodies."""
import http.client
import json
import socket
import time
import urllib.error
import urllib.request
import uuid
from email.message import Message
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, TypeVar

from ._answer import error_from_answer, parse_body, read_capped, redirect_error, scrub
from ._errors import ApiError, APIConnectionError, APITimeoutError
from ._parse import shaped
from ._retry import is_retryable, retry_delay

T = TypeVar("T")


class Answer(NamedTuple):
    status: int
    headers: Message
    body: Any


class Deadline:
    """One call's time: every attempt, read and wait between retries comes out of it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self._end - time.monotonic())

    def check(self) -> float:
        """What remains; an APITimeoutError when nothing does."""
        left = self.remaining()
        if left <= 0:
            raise self.error()
        return left

    def error(self) -> APITimeoutError:
        return APITimeoutError(f"request timed out after {self.seconds:g} s")


class _TimedReads:
    """A body read as it arrives (``read1``), the deadline checked before each read: a socket
    timeout bounds one wait only, and a server trickling a byte at a time would otherwise hold a
    call past its ``timeout``."""

    def __init__(self, response: http.client.HTTPResponse, deadline: Deadline) -> None:
        self._response = response
        self._deadline = deadline

    def read(self, amt: int) -> bytes:
        self._deadline.check()
        return self._response.read1(amt)


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Followed, a redirect would carry the keys to wherever it points: the 3xx surfaces as an
    HTTPError, which becomes a RedirectError."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, OSError, ValueError)


class Transport:
    def __init__(self, api_url: str, api_key: str, timeout: float, max_retries: int, max_answer_bytes: int) -> None:
        self.api_url = api_url
        self._api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_answer_bytes = max_answer_bytes
        self._opener = urllib.request.build_opener(_RefuseRedirects())

    def __repr__(self) -> str:
        return f"Transport(api_url={self.api_url!r})"

    def call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        headers: Optional[Dict[str, str]] = None,
        expect: str = "object",
        max_retries: Optional[int] = None,
        secrets: Tuple[str, ...] = (),
        timeout: Optional[float] = None,
    ) -> Answer:
        def attempt(sent: Dict[str, str], deadline: Deadline) -> Answer:
            response = self._send(method, path, body, sent, deadline, secrets)
            with response:
                status = response.status
                try:
                    raw = read_capped(_TimedReads(response, deadline), response.headers, status, self.max_answer_bytes)
                except NETWORK_ERRORS as cause:
                    raise self._network_error(cause, deadline, secrets) from None
            return Answer(status, response.headers, parse_body(status, response.headers, raw, expect))

        return self.with_retries(method, headers, Deadline(timeout or self.timeout), attempt, max_retries)[0]

    def call_as(self, parse: Callable[[Any, Message], T], method: str, path: str, **options: Any) -> T:
        """``call``, its body read by ``parse`` (which raises ShapeError for a body of another shape)."""
        answer = self.call(method, path, **options)
        return shaped(answer.status, answer.headers, lambda body: parse(body, answer.headers), answer.body)

    def open(
        self,
        method: str,
        path: str,
        *,
        body: Any,
        headers: Dict[str, str],
        first: Callable[[http.client.HTTPResponse, Deadline], T],
        secrets: Tuple[str, ...] = (),
        timeout: Optional[float] = None,
    ) -> Tuple[T, Deadline]:
        """A call whose answer is read after this returns (an event stream): ``first`` reads up to
        what makes an attempt count, and is retried like ``call`` until it returns. The caller
        closes what it returns; the deadline bounds the whole reading too."""

        def attempt(sent: Dict[str, str], deadline: Deadline) -> T:
            response = self._send(method, path, body, sent, deadline, secrets)
            try:
                return first(response, deadline)
            except BaseException:
                response.close()
                raise

        return self.with_retries(method, headers, Deadline(timeout or self.timeout), attempt, None)

    def with_retries(
        self,
        method: str,
        extra_headers: Optional[Dict[str, str]],
        deadline: Deadline,
        attempt: Callable[[Dict[str, str], Deadline], T],
        max_retries: Optional[int],
    ) -> Tuple[T, Deadline]:
        retries = self.max_retries if max_retries is None else max_retries
        # GET and PUT are idempotent by themselves. POST, PATCH and DELETE get one key per logical
        # call, on the first attempt too: the server applies them at most once however many
        # attempts reach it, and a retry after a lost answer gets the first answer.
        idempotency_key = None if method in ("GET", "PUT") else str(uuid.uuid4())
        headers = {"Accept": "application/json", "Authorization": f"Bearer {self._api_key}"}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        headers.update(extra_headers or {})
        retry = 0
        while True:
            try:
                return attempt(headers, deadline), deadline
            except ApiError as error:
                if retry >= retries or not is_retryable(error, idempotency_key is not None):
                    raise
                delay = retry_delay(retry, error.retry_after)
                # Waiting past the deadline only to time out would hide the real error.
                if delay >= deadline.remaining():
                    raise
            time.sleep(delay)
            retry += 1

    def _send(
        self, method: str, path: str, body: Any, headers: Dict[str, str], deadline: Deadline, secrets: Tuple[str, ...]
    ) -> http.client.HTTPResponse:
        data = None if body is None else json.dumps(body).encode("utf-8")
        sent = dict(headers, **({"Content-Type": "application/json"} if data is not None else {}))
        request = urllib.request.Request(self.api_url + path, data=data, headers=sent, method=method)
        try:
            response = self._opener.open(request, timeout=deadline.check())
        except urllib.error.HTTPError as answer:
            raise self._failure(answer, deadline, secrets) from None
        except NETWORK_ERRORS as cause:
            raise self._network_error(cause, deadline, secrets) from None
        assert isinstance(response, http.client.HTTPResponse)
        return response

    def _failure(self, answer: urllib.error.HTTPError, deadline: Deadline, secrets: Tuple[str, ...]) -> ApiError:
        with answer:
            if 300 <= answer.code < 400:
                return redirect_error(answer.code, answer.headers)
            try:
                raw = read_capped(answer, answer.headers, answer.code, self.max_answer_bytes)
            except ApiError as error:
                return error
            except NETWORK_ERRORS as cause:
                return self._network_error(cause, deadline, secrets)
            return error_from_answer(answer.code, answer.reason or "", answer.headers, raw, self._secrets(secrets))

    def _network_error(self, cause: BaseException, deadline: Deadline, secrets: Tuple[str, ...]) -> ApiError:
        if deadline.remaining() <= 0 or isinstance(cause, socket.timeout) or (
            isinstance(cause, urllib.error.URLError) and isinstance(cause.reason, socket.timeout)
        ):
            return deadline.error() if deadline.remaining() <= 0 else APITimeoutError(f"no answer within {deadline.seconds:g} s")
        detail = cause.reason if isinstance(cause, urllib.error.URLError) else cause
        text = str(detail) or type(detail).__name__
        return APIConnectionError(f"could not reach persona-refine: {scrub(text, self._secrets(secrets))}")

    def scrub(self, text: str, secrets: Tuple[str, ...]) -> str:
        """``text`` from elsewhere (a server, a socket) without the API key or ``secrets``."""
        return scrub(text, self._secrets(secrets))

    def _secrets(self, extra: Tuple[str, ...]) -> List[str]:
        return [self._api_key, *extra]
