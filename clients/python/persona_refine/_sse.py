"""Reads a text/event-stream body as it arrives, split anywhere by the network: inside an event,
a line, between a CR and its LF, inside a multi-byte character. Comments (``: keep-alive``) and
fields other than ``event`` and ``data`` are skipped, as the format says.

Linear in the bytes received, and bounded: a line, or an event's data, longer than
``max_event_bytes`` (counted in characters, close enough to bytes for a bound) raises
AnswerTooLargeError, so a server that never ends a line cannot fill the memory."""
import codecs
import re
from typing import List, NamedTuple, Optional

from ._errors import AnswerTooLargeError

#: 16 MiB: a ``done`` event carries the whole refined text, which is far smaller.
DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
_LINE_BREAK = re.compile(r"[\r\n]")


class ServerSentEvent(NamedTuple):
    #: ``message`` when the event names none.
    event: str
    #: The event's data lines, joined with ``\n``.
    data: str


class EventStreamParser:
    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._max = max_event_bytes
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending: List[str] = []
        self._pending_length = 0
        self._after_cr = False
        self._event = ""
        self._data: List[str] = []
        self._data_length = 0

    def push(self, chunk: bytes) -> List[ServerSentEvent]:
        """The events this chunk completes, in order."""
        return self._feed(self._decoder.decode(chunk))

    def end(self) -> List[ServerSentEvent]:
        """The events completed at the end of the body; an unterminated last event is dropped."""
        events = self._feed(self._decoder.decode(b"", final=True))
        self._pending, self._pending_length = [], 0
        return events

    def _feed(self, text: str) -> List[ServerSentEvent]:
        events: List[ServerSentEvent] = []
        start = 1 if self._after_cr and text.startswith("\n") else 0
        if text:
            self._after_cr = False
        for match in _LINE_BREAK.finditer(text, start):
            end = match.start()
            if end < start:  # the LF of a CRLF, consumed with its CR
                continue
            line = self._take(text[start:end])
            start = end + 1
            if text[end] == "\r":
                if start == len(text):
                    self._after_cr = True
                elif text[start] == "\n":
                    start += 1
            event = self._line(line)
            if event is not None:
                events.append(event)
        if start < len(text):
            self._keep(text[start:])
        return events

    def _take(self, last: str) -> str:
        if not self._pending:
            self._guard(len(last), "a line")
            return last
        self._keep(last)
        line = "".join(self._pending)
        self._pending, self._pending_length = [], 0
        return line

    def _keep(self, piece: str) -> None:
        self._pending.append(piece)
        self._pending_length += len(piece)
        self._guard(self._pending_length, "a line")

    def _guard(self, length: int, what: str) -> None:
        if length > self._max:
            raise AnswerTooLargeError(200, f"{what} of the event stream", self._max)

    def _line(self, line: str) -> Optional[ServerSentEvent]:
        if line == "":
            if not self._data:
                self._event = ""
                return None
            event = ServerSentEvent(self._event or "message", "\n".join(self._data))
            self._event, self._data, self._data_length = "", [], 0
            return event
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._event = value
        elif field == "data":
            self._data_length += len(value) + 1
            self._guard(self._data_length, "an event")
            self._data.append(value)
        return None
