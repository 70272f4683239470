"""The entry point: ``PersonaRefine()``, configured by arguments or the environment."""
import datetime
import os
import re
import urllib.parse
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _parse
from ._answer import DEFAULT_MAX_ANSWER_BYTES
from ._keys import check_api_key, check_provider_keys, fallback_body, judge_body
from ._stream import RefineStream
from ._transport import Transport
from .evals import Evals
from .feedback import FeedbackApi
from .keys import Keys
from .personas import Personas, persona_path
from .reviews import Retention, Reviews
from .types import CheckResult, Fallback, Judge, JudgeSpec, QualityRow, RefineResult, UsageRow
from .webhooks import Webhooks

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
Day = Union[str, datetime.date]


def _api_url(base_url: str) -> str:
    """``http://host/`` and ``http://host/v1`` both mean the server at ``http://host``."""
    return re.sub(r"/v1$", "", base_url.rstrip("/")) + "/v1"


class PersonaRefine:
    """A client of one persona-refine server.

    ``base_url`` (the server root; a trailing ``/v1`` is accepted) and ``api_key`` default to the
    environment's ``PERSONA_REFINE_URL`` and ``PERSONA_REFINE_API_KEY``. ``timeout`` bounds one
    call in seconds, retries and the waits between them included; ``max_retries`` is how many
    times a 429, 502, 503, 504 or dropped connection is tried again."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    ) -> None:
        base_url = base_url or os.environ.get("PERSONA_REFINE_URL")
        api_key = api_key or os.environ.get("PERSONA_REFINE_API_KEY")
        if not base_url and not api_key:
            raise ValueError("PersonaRefine: pass base_url and api_key, or set PERSONA_REFINE_URL and PERSONA_REFINE_API_KEY")
        if not api_key:
            raise ValueError("PersonaRefine: pass api_key, or set PERSONA_REFINE_API_KEY")
        if not base_url:
            raise ValueError("PersonaRefine: pass base_url, or set PERSONA_REFINE_URL (e.g. http://127.0.0.1:8080)")
        if not re.match(r"https?://", base_url):
            raise ValueError(f"PersonaRefine: base_url must be an http(s) URL, got {base_url!r}")
        check_api_key(api_key)
        self.base_url = base_url
        self._transport = Transport(_api_url(base_url), api_key, timeout, max_retries, max_answer_bytes)
        self.personas = Personas(self._transport)
        self.evals = Evals(self._transport)
        self.keys = Keys(self._transport)
        self.feedback = FeedbackApi(self._transport)
        self.retention = Retention(self._transport)
        self.reviews = Reviews(self._transport)
        self.webhooks = Webhooks(self._transport)

    def __repr__(self) -> str:
        return f"PersonaRefine(base_url={self.base_url!r})"

    def refine(
        self,
        provider: str,
        persona_id: str,
        content: str,
        provider_api_key: Optional[str] = None,
        model: Optional[str] = None,
        persona_label: Optional[str] = None,
        persona_version: Optional[int] = None,
        judge: Optional[JudgeSpec] = None,
        fallbacks: Optional[Sequence[Fallback]] = None,
        variant: Optional[str] = None,
    ) -> RefineResult:
        """Rewrites ``content`` in the persona's voice through ``provider``, paid with
        ``provider_api_key`` (then through ``fallbacks``, if it fails in a way that may pass).
        ``provider="rules"`` applies the persona's rules without a model or a key. ``variant`` names
        one of the persona's variants, merged over its attributes (``result.persona_variant``)."""
        body, secrets = _refine_body(locals())
        return self._transport.call_as(_parse.refine_result, "POST", "/refine", body=body, secrets=secrets)

    def refine_stream(
        self,
        provider: str,
        persona_id: str,
        content: str,
        provider_api_key: Optional[str] = None,
        model: Optional[str] = None,
        persona_label: Optional[str] = None,
        persona_version: Optional[int] = None,
        judge: Optional[JudgeSpec] = None,
        fallbacks: Optional[Sequence[Fallback]] = None,
        variant: Optional[str] = None,
    ) -> RefineStream:
        """``refine``, streamed: iterate for ``RefineDelta`` pieces as they are generated, then read
        ``.result``. Retried like ``refine`` until the first piece arrives, never after. A stream
        gets no repair call: what only a model could fix is in ``result.violations``."""
        body, secrets = _refine_body(locals())
        return RefineStream(self._transport, body, secrets)

    def check(
        self,
        persona_id: str,
        content: str,
        original: Optional[str] = None,
        judge: Optional[Judge] = None,
        persona_label: Optional[str] = None,
        persona_version: Optional[int] = None,
        variant: Optional[str] = None,
    ) -> CheckResult:
        """Scores ``content`` against the persona, without a provider (unless ``judge``): ``score``
        0–100, its parts ``scores``, every finding, and ``passed``. With ``original`` (what
        ``content`` was rewritten from), also the numbers, links and code ``content`` lost."""
        secrets = check_provider_keys(None, judge, None)
        body: Dict[str, Any] = {"personaId": persona_id, "content": content}
        for name, value in (("original", original), ("personaLabel", persona_label), ("personaVersion", persona_version), ("variant", variant)):
            if value is not None:
                body[name] = value
        if judge is not None:
            body["judge"] = judge_body(judge)
        return self._transport.call_as(_parse.check_result, "POST", "/check", body=body, secrets=secrets)

    def usage(self, from_: Optional[Day] = None, to: Optional[Day] = None, group_by: Optional[str] = None) -> List[UsageRow]:
        """One row per UTC day × provider × model × endpoint, oldest first; by default this month
        so far. ``group_by="key"`` splits the rows per API key too."""
        query = {k: str(v) for k, v in (("from", from_), ("to", to), ("groupBy", group_by)) if v is not None}
        path = "/usage" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        answer = self._transport.call("GET", path, expect="array")
        return _parse.shaped(answer.status, answer.headers, lambda body: [_parse.usage_row(row) for row in body], answer.body)

    def quality(self, persona_id: str, from_: Optional[Day] = None, to: Optional[Day] = None, group_by: Optional[str] = None) -> List[QualityRow]:
        """The persona on live traffic: its answers, their mean score, those under ``minScore`` or
        with a required finding left, findings by rule and the ratings given, one row per UTC day
        with any (oldest first; by default the last 30 days), or per version with
        ``group_by="version"``."""
        query = {k: str(v) for k, v in (("from", from_), ("to", to), ("groupBy", group_by)) if v is not None}
        path = f"{persona_path(persona_id)}/quality" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        return self._transport.call_as(lambda body, _: _parse.quality_rows(body), "GET", path)


def _refine_body(arguments: Dict[str, Any]) -> Tuple[Dict[str, Any], Tuple[str, ...]]:
    """The JSON body of a refine from its keyword arguments, and the provider keys it carries."""
    secrets = check_provider_keys(arguments["provider_api_key"], arguments["judge"], arguments["fallbacks"])
    names = {
        "provider": "provider", "persona_id": "personaId", "content": "content", "provider_api_key": "providerApiKey",
        "model": "model", "persona_label": "personaLabel", "persona_version": "personaVersion", "variant": "variant",
    }
    body = {wire: arguments[name] for name, wire in names.items() if arguments[name] is not None}
    if arguments["judge"] is not None and arguments["judge"] is not False:
        body["judge"] = judge_body(arguments["judge"])
    if arguments["fallbacks"]:
        body["fallbacks"] = [fallback_body(f) for f in arguments["fallbacks"]]
    return body, secrets
