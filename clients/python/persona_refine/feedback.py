"""Ratings of live answers: POST /v1/feedback and GET /v1/personas/{id}/feedback."""
import urllib.parse
from typing import Any, Dict, List, Optional

from . import _parse
from ._pages import all_pages
from ._transport import Transport
from .personas import persona_path
from .types import Feedback


class FeedbackApi:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(self, request_id: str, rating: str, corrected_text: Optional[str] = None, comment: Optional[str] = None) -> Feedback:
        """Rates (``"up"`` or ``"down"``) the answer of a refine or chat completion of the last 30
        days, named by its ``request_id`` (``result.request_id``); another account's, an unknown or
        an older one raises NotFoundError. A second rating of the same answer replaces the first."""
        body: Dict[str, Any] = {"requestId": request_id, "rating": rating}
        if corrected_text is not None:
            body["correctedText"] = corrected_text
        if comment is not None:
            body["comment"] = comment
        return self._transport.call_as(lambda b, _: _parse.feedback(b), "POST", "/feedback", body=body)

    def list(self, persona_id: str, rating: Optional[str] = None, *, page_size: int = 100) -> List[Feedback]:
        """Every rating of the persona's answers, newest first (read ``page_size`` at a time);
        ``rating`` keeps only ``"up"`` or only ``"down"``."""
        query = {"limit": str(page_size), **({} if rating is None else {"rating": rating})}
        return all_pages(self._transport, f"{persona_path(persona_id)}/feedback?{urllib.parse.urlencode(query)}", _parse.feedback)
