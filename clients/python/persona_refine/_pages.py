"""Every page of a list: the service's ``Link: <…>; rel="next"`` header, followed to the end."""
import re
from email.message import Message
from typing import Any, Callable, Iterator, List, Optional, Set, TypeVar

from ._answer import request_id_of
from ._errors import ApiError
from ._parse import shaped
from ._transport import Transport

T = TypeVar("T")
_NEXT = re.compile(r'<([^>]*)>\s*;\s*rel="next"')


def next_path(headers: Message) -> Optional[str]:
    """The next page's path under /v1; only a path on the same server is followed."""
    match = _NEXT.search(headers.get("link") or "")
    if match is None:
        return None
    target = match.group(1)
    if not target.startswith("/v1/"):
        raise ApiError(200, f"the next page's link {target!r} is not a path of this server", request_id_of(headers))
    return target[len("/v1"):]


def iter_pages(transport: Transport, path: str, parse: Callable[[Any], T]) -> Iterator[T]:
    """The items of every page, each page fetched when the one before it has been read: a loop
    that stops early fetches no more."""
    seen: Set[str] = set()
    next_one: Optional[str] = path
    while next_one is not None:
        if next_one in seen:
            raise ApiError(200, "the list's pages link back to one already read", None)
        seen.add(next_one)
        answer = transport.call("GET", next_one, expect="array")
        yield from shaped(answer.status, answer.headers, lambda body: [parse(item) for item in body], answer.body)
        next_one = next_path(answer.headers)


def all_pages(transport: Transport, path: str, parse: Callable[[Any], T]) -> List[T]:
    return list(iter_pages(transport, path, parse))
