"""The review queue: a persona's retention policy, /v1/personas/{id}/retention, and the answers it
kept, /v1/personas/{id}/reviews, each resolved, optionally into an evaluation sample."""
import urllib.parse
from typing import Any, Dict, List, Optional

from . import _parse
from ._pages import all_pages
from ._transport import Transport
from .personas import persona_path
from .types import RetentionPolicy, Review


class Retention:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def get(self, persona_id: str) -> RetentionPolicy:
        """``RetentionPolicy(keep="none", days=30)`` until one is set."""
        return self._transport.call_as(lambda b, _: _parse.retention_policy(b), "GET", f"{persona_path(persona_id)}/retention")

    def set(self, persona_id: str, keep: str, days: int) -> RetentionPolicy:
        """Opt in to keeping answers with their text for ``days`` (1–90): ``belowMinScore`` those
        under the version's ``minScore`` or with a required finding, ``flagged`` those and any rated
        down within a day, ``all`` every one. ``keep="none"`` deletes what was kept."""
        body = {"keep": keep, "days": days}
        return self._transport.call_as(lambda b, _: _parse.retention_policy(b), "PUT", f"{persona_path(persona_id)}/retention", body=body)


class Reviews:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self, persona_id: str, status: Optional[str] = None, *, page_size: int = 100) -> List[Review]:
        """Every kept answer, newest first (read ``page_size`` at a time): ``status="open"`` (the
        default) those in the queue, ``"resolved"`` those resolved and not deleted yet."""
        query = {"limit": str(page_size), **({} if status is None else {"status": status})}
        return all_pages(self._transport, f"{persona_path(persona_id)}/reviews?{urllib.parse.urlencode(query)}", _parse.review)

    def resolve(self, persona_id: str, request_id: str, add_sample: Optional[Dict[str, Any]] = None) -> Review:
        """Resolves the review; with ``add_sample`` (``{"name"?, "expect"?}``, as the API spells a
        sample) its ``content`` becomes a new evaluation sample, whose id the answer carries as
        ``sample_id``. A review resolved already raises ConflictError: a retry never adds a second sample."""
        path = f"{persona_path(persona_id)}/reviews/{urllib.parse.quote(request_id, safe='')}/resolve"
        body = {} if add_sample is None else {"addSample": add_sample}
        return self._transport.call_as(lambda b, _: _parse.review(b), "POST", path, body=body)
