"""The account's API keys, /v1/keys (scope ``keys:admin``). A secret is returned by ``create`` and
``rotate`` only, once; those two are never retried, since the service keeps no copy of an answer
holding a secret (a retry would make a second key, or rotate twice)."""
import urllib.parse
from typing import Any, Dict, List, Optional

from . import _parse
from ._transport import Transport
from .types import ApiKey, IssuedApiKey


def _key_path(key_id: str) -> str:
    return f"/keys/{urllib.parse.quote(key_id, safe='')}"


class Keys:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(
        self,
        name: str,
        scopes: List[str],
        *,
        expires_at: Optional[str] = None,
        tokens_per_day: Optional[int] = None,
        refines_per_minute: Optional[int] = None,
    ) -> IssuedApiKey:
        """A key with at most the scopes of the calling key; its ``secret`` is in this answer only."""
        body: Dict[str, Any] = {"name": name, "scopes": scopes}
        if expires_at is not None:
            body["expiresAt"] = expires_at
        limits = {k: v for k, v in (("tokensPerDay", tokens_per_day), ("refinesPerMinute", refines_per_minute)) if v is not None}
        if limits:
            body["limits"] = limits
        return self._transport.call_as(lambda b, _: _parse.issued_key(b), "POST", "/keys", body=body, max_retries=0)

    def list(self) -> List[ApiKey]:
        """The account's keys, oldest first; never a secret."""
        answer = self._transport.call("GET", "/keys", expect="array")
        return _parse.shaped(answer.status, answer.headers, lambda body: [_parse.api_key(k) for k in body], answer.body)

    def get(self, key_id: str) -> ApiKey:
        return self._transport.call_as(lambda b, _: _parse.api_key(b), "GET", _key_path(key_id))

    def delete(self, key_id: str) -> None:
        """Revokes the key; every instance refuses it within 5 s."""
        self._transport.call("DELETE", _key_path(key_id), expect="none")

    def rotate(self, key_id: str, grace_seconds: Optional[int] = None) -> IssuedApiKey:
        """A new secret for the key (same id, scopes, limits); the old one keeps working
        ``grace_seconds`` (default 0)."""
        body = {} if grace_seconds is None else {"graceSeconds": grace_seconds}
        return self._transport.call_as(lambda b, _: _parse.issued_key(b), "POST", f"{_key_path(key_id)}/rotate", body=body, max_retries=0)
