"""``client.refine_stream(…)``: the refined text piece by piece as the service streams it, then
the final result. Retried like any POST until its first piece arrives, never after: a piece
already shown cannot be taken back, and a second run would not repeat it word for word."""
import http.client
import json
from email.message import Message
from types import TracebackType
from typing import Any, Dict, Generator, List, NamedTuple, Optional, Tuple, Type

from ._answer import request_id_of
from ._errors import ApiError, APIConnectionError, error_for_status
from ._parse import ShapeError, stream_result
from ._sse import DEFAULT_MAX_EVENT_BYTES, EventStreamParser, ServerSentEvent
from ._transport import NETWORK_ERRORS, Deadline, Transport
from .types import RefineDelta, RefineResult

_CHUNK = 64 * 1024
_COUNTED = ("delta", "done", "error")


class _Opened(NamedTuple):
    response: http.client.HTTPResponse
    parser: EventStreamParser
    #: Read while waiting for the first piece, not handed out yet.
    events: List[ServerSentEvent]


class RefineStream:
    """Iterate it once for ``RefineDelta`` pieces; ``result`` is the final RefineResult once the
    iteration is over. Nothing is sent before the first ``next``. Use it as a context manager:
    leaving the ``with`` block closes the connection, which stops the provider."""

    def __init__(self, transport: Transport, body: Dict[str, Any], secrets: Tuple[str, ...]) -> None:
        self._transport = transport
        self._body = body
        self._secrets = secrets
        self._pieces: Optional[Generator[RefineDelta, None, None]] = None
        self._result: Optional[RefineResult] = None
        self._response: Optional[http.client.HTTPResponse] = None

    @property
    def result(self) -> RefineResult:
        """The final result; a RuntimeError before the stream has ended."""
        if self._result is None:
            raise RuntimeError("the stream has not ended yet: iterate it to the end first")
        return self._result

    def __iter__(self) -> "RefineStream":
        return self

    def __next__(self) -> RefineDelta:
        if self._pieces is None:
            self._pieces = self._run()
        return next(self._pieces)

    def __enter__(self) -> "RefineStream":
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], trace: Optional[TracebackType]
    ) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (the service then stops the provider); iterating ends."""
        if self._response is not None:
            self._response.close()
        if self._pieces is not None:
            self._pieces.close()

    def _run(self) -> Generator[RefineDelta, None, None]:
        max_event = min(self._transport.max_answer_bytes, DEFAULT_MAX_EVENT_BYTES)
        opened, deadline = self._transport.open(
            "POST", "/refine", body=dict(self._body, stream=True), headers={"Accept": "text/event-stream"},
            first=lambda response, deadline: self._first(response, deadline, max_event), secrets=self._secrets,
        )
        response, parser, events = opened
        self._response = response
        headers = response.headers
        ended = False
        try:
            while True:
                for event in events:
                    if event.event == "delta":
                        yield RefineDelta(_data(event, headers, "text")["text"])
                    elif event.event == "done":
                        try:
                            self._result = stream_result(_data(event, headers, "response"), headers)
                        except ShapeError as error:
                            raise ApiError(200, f"the stream's done event {error}", request_id_of(headers)) from None
                        return
                    elif event.event == "error":
                        raise self._error_of(event, headers)
                if ended:
                    raise _cut(headers, "it ended without its done event")
                chunk = self._read(response, deadline, headers)
                ended = chunk is None
                events = parser.end() if chunk is None else parser.push(chunk)
        finally:
            response.close()

    def _first(self, response: http.client.HTTPResponse, deadline: Deadline, max_event: int) -> _Opened:
        """One attempt's answer, read up to its first event that counts: an ``error`` first is the
        attempt's failure, and may be retried."""
        headers = response.headers
        if not (headers.get("content-type") or "").startswith("text/event-stream"):
            raise ApiError(response.status, f"HTTP {response.status} answer is not an event stream", request_id_of(headers))
        parser = EventStreamParser(max_event)
        events: List[ServerSentEvent] = []
        while True:
            chunk = self._read(response, deadline, headers)
            read = parser.end() if chunk is None else parser.push(chunk)
            # Only the events that count are kept: endless unknown ones must not pile up.
            events.extend(event for event in read if event.event in _COUNTED)
            if events and events[0].event == "error":
                raise self._error_of(events[0], headers)
            if events:
                return _Opened(response, parser, events)
            if chunk is None:
                raise _cut(headers, "it ended before its first event")

    def _read(self, response: http.client.HTTPResponse, deadline: Deadline, headers: Message) -> Optional[bytes]:
        deadline.check()
        try:
            chunk = response.read1(_CHUNK)
        except NETWORK_ERRORS as cause:
            if deadline.remaining() <= 0:
                raise deadline.error() from None
            raise _cut(headers, self._transport.scrub(str(cause) or type(cause).__name__, self._secrets)) from None
        return chunk or None

    def _error_of(self, event: ServerSentEvent, headers: Message) -> ApiError:
        """The ``error`` event carries the status and message the same failure gets unstreamed."""
        data = _data(event, headers, "")
        said, code = data.get("message"), data.get("error")
        message = self._transport.scrub(said if isinstance(said, str) else "the stream failed", self._secrets)
        status = code if isinstance(code, int) and not isinstance(code, bool) else 500
        # Unstreamed this is the X-Error-Source header; on a stream the message's prefix says it.
        source = "provider" if message.startswith('provider "') else "service"
        return error_for_status(status, message, request_id_of(headers), source=source)


def _data(event: ServerSentEvent, headers: Message, required: str) -> Dict[str, Any]:
    def wrong(detail: str) -> ApiError:
        return ApiError(200, f"the stream's {event.event} event {detail}", request_id_of(headers))

    try:
        data = json.loads(event.data)
    except ValueError:
        raise wrong("is not valid JSON") from None
    if not isinstance(data, dict):
        raise wrong("is not a JSON object")
    if required and not isinstance(data.get(required), str):
        raise wrong(f'has no "{required}" text')
    return data


def _cut(headers: Message, detail: str) -> APIConnectionError:
    return APIConnectionError(f"the stream from persona-refine was cut: {detail}", request_id_of(headers))
