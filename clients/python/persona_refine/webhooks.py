"""Webhook endpoints, /v1/webhooks (scope ``webhooks:admin``): where the service POSTs signed
events. A secret is returned by ``create`` and ``rotate_secret`` only; those two and ``test`` are
never retried, since the service keeps no copy of their answers (a retry after a lost answer would
add a second endpoint, rotate twice or send a second test event)."""
import enum
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional, Union

from . import _parse
from ._pages import iter_pages
from ._transport import Transport
from .types import Webhook, WebhookDelivery, WebhookWithSecret


class _Unchanged(enum.Enum):
    """``update``'s default for ``description``, where None means "clear it"."""

    UNCHANGED = 0


def _webhook_path(webhook_id: str) -> str:
    return f"/webhooks/{urllib.parse.quote(webhook_id, safe='')}"


class Webhooks:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(self, url: str, events: List[str], *, description: Optional[str] = None) -> WebhookWithSecret:
        """An endpoint receiving ``events`` (types such as ``"label.moved"``, or ``"*"`` for every
        type); its ``secret`` is in this answer only. ``url`` must be ``https`` (``http`` only for a
        host in the server's WEBHOOK_ALLOWED_HOSTS); a private, loopback or link-local address is a
        BadRequestError saying so, a 21st endpoint a ConflictError."""
        body: Dict[str, Any] = {"url": url, "events": events}
        if description is not None:
            body["description"] = description
        return self._transport.call_as(lambda b, _: _parse.webhook_with_secret(b), "POST", "/webhooks", body=body, max_retries=0)

    def list(self) -> List[Webhook]:
        """The account's endpoints, oldest first; never a secret."""
        answer = self._transport.call("GET", "/webhooks", expect="array")
        return _parse.shaped(answer.status, answer.headers, lambda body: [_parse.webhook(w) for w in body], answer.body)

    def get(self, webhook_id: str) -> Webhook:
        return self._transport.call_as(lambda b, _: _parse.webhook(b), "GET", _webhook_path(webhook_id))

    def update(
        self,
        webhook_id: str,
        *,
        url: Optional[str] = None,
        events: Optional[List[str]] = None,
        description: Union[str, None, _Unchanged] = _Unchanged.UNCHANGED,
        disabled: Optional[bool] = None,
    ) -> Webhook:
        """Changes what is given: ``description=None`` clears it, ``disabled=False`` re-enables an
        endpoint disabled after five days of failed deliveries (those are not sent again)."""
        body: Dict[str, Any] = {name: value for name, value in (("url", url), ("events", events), ("disabled", disabled)) if value is not None}
        if not isinstance(description, _Unchanged):
            body["description"] = description
        if not body:
            raise ValueError("webhooks.update: give url, events, description or disabled")
        return self._transport.call_as(lambda b, _: _parse.webhook(b), "PATCH", _webhook_path(webhook_id), body=body)

    def delete(self, webhook_id: str) -> None:
        """Removes the endpoint; its pending deliveries are dropped."""
        self._transport.call("DELETE", _webhook_path(webhook_id), expect="none")

    def test(self, webhook_id: str) -> WebhookDelivery:
        """Sends a ``webhook.test`` event to the endpoint, whatever it subscribed to; returns its
        delivery, pending. A disabled endpoint raises ConflictError."""
        return self._transport.call_as(lambda b, _: _parse.webhook_delivery(b), "POST", f"{_webhook_path(webhook_id)}/test", max_retries=0)

    def rotate_secret(self, webhook_id: str) -> WebhookWithSecret:
        """A new secret, in this answer only; for 24 hours deliveries carry the old secret's
        signature too, so a receiver can switch without a gap."""
        path = f"{_webhook_path(webhook_id)}/rotate-secret"
        return self._transport.call_as(lambda b, _: _parse.webhook_with_secret(b), "POST", path, max_retries=0)

    def deliveries(self, webhook_id: str, *, page_size: int = 100) -> Iterator[WebhookDelivery]:
        """Every delivery to the endpoint (kept 30 days), newest first: ``page_size`` are fetched at
        a time, each page as the loop reaches it, so a loop that stops early fetches no more."""
        query = urllib.parse.urlencode({"limit": str(page_size)})
        return iter_pages(self._transport, f"{_webhook_path(webhook_id)}/deliveries?{query}", _parse.webhook_delivery)
