"""Webhooks on the real server (skipped without one), which the harness starts with
WEBHOOK_ALLOWED_HOSTS=127.0.0.1 so it may deliver to a receiver on loopback: every call of the
resource, and real deliveries verified with verify_webhook, during a secret rotation too."""
import queue
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, List, NamedTuple, Optional

from support import live_client, unique

from persona_refine import (
    BadRequestError, NotFoundError, Webhook, WebhookDelivery, WebhookVerificationError, WebhookWithSecret, verify_webhook,
)


class Received(NamedTuple):
    headers: Any
    body: bytes


class Receiver:
    """A webhook receiver on loopback: answers 204 and queues what it got."""

    def __init__(self) -> None:
        self.received: "queue.Queue[Received]" = queue.Queue()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(204)
                self.end_headers()
                receiver.received.put(Received(self.headers, body))

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    def next(self) -> Received:
        return self.received.get(timeout=15)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def until(check: Callable[[], bool], what: str) -> None:
    """Asks again until ``check`` holds (a poll, bounded at 15 s)."""
    end = time.monotonic() + 15
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"after 15 s: {what}")
        time.sleep(0.05)  # sleeps because the server records a delivery's outcome after the receiver answers


class Webhooks(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()
        self.receiver = Receiver()
        self.created: List[str] = []

    def tearDown(self) -> None:
        for webhook_id in self.created:
            self.client.webhooks.delete(webhook_id)
        self.receiver.close()

    def create(self, events: Optional[List[str]] = None, description: Optional[str] = None) -> WebhookWithSecret:
        hook = self.client.webhooks.create(self.receiver.url, events or ["persona.created"], description=description)
        self.created.append(hook.id)
        return hook

    def test_create_list_get_update_and_delete(self) -> None:
        name = unique("ops")
        hook = self.create(["label.moved", "eval.failed"], description=name)
        self.assertIsInstance(hook, WebhookWithSecret)
        self.assertTrue(hook.id.startswith("wh_") and hook.secret.startswith("whsec_"))
        self.assertNotIn(hook.secret, repr(hook))
        self.assertEqual((hook.url, hook.events, hook.description, hook.disabled), (self.receiver.url, ["label.moved", "eval.failed"], name, False))
        [listed] = [w for w in self.client.webhooks.list() if w.id == hook.id]
        self.assertNotIsInstance(listed, WebhookWithSecret)
        self.assertEqual(listed, Webhook(hook.id, hook.url, hook.events, hook.description, hook.created_at, hook.disabled))
        self.assertEqual(self.client.webhooks.get(hook.id), listed)

        cleared = self.client.webhooks.update(hook.id, events=["*"], description=None)
        self.assertEqual((cleared.events, cleared.description), (["*"], None))
        self.assertTrue(self.client.webhooks.update(hook.id, disabled=True).disabled)
        self.assertFalse(self.client.webhooks.update(hook.id, disabled=False).disabled)

        self.client.webhooks.delete(hook.id)
        self.created.remove(hook.id)
        with self.assertRaises(NotFoundError):
            self.client.webhooks.get(hook.id)

    def test_a_url_the_server_refuses_is_a_bad_request_saying_why(self) -> None:
        with self.assertRaises(BadRequestError) as refused:
            self.client.webhooks.create("http://example.com/hook", ["*"])
        self.assertIn("url must use https", refused.exception.message)
        with self.assertRaises(BadRequestError) as internal:
            self.client.webhooks.create("https://10.0.0.7/hook", ["*"])
        self.assertIn("a private address", internal.exception.message)

    def test_real_deliveries_verify_with_the_secret_and_during_a_rotation_with_either(self) -> None:
        hook = self.create()
        pending = self.client.webhooks.test(hook.id)
        self.assertIsInstance(pending, WebhookDelivery)
        self.assertEqual((pending.type, pending.status, pending.attempts), ("webhook.test", "pending", 0))
        received = self.receiver.next()
        event = verify_webhook(hook.secret, received.headers, received.body)
        self.assertEqual((event.id, event.type, event.data), (pending.event_id, "webhook.test", {"webhookId": hook.id}))
        with self.assertRaises(WebhookVerificationError) as changed:
            verify_webhook(hook.secret, received.headers, received.body.replace(hook.id.encode(), b"wh_other"))
        self.assertEqual(changed.exception.reason, "signature")

        persona = self.client.personas.create(name=unique("Hooked"))
        created = verify_webhook(hook.secret, *self.receiver.next())
        self.assertEqual((created.type, created.data), ("persona.created", {"id": persona.id, "name": persona.name, "version": 1}))

        rotated = self.client.webhooks.rotate_secret(hook.id)
        self.assertNotEqual(rotated.secret, hook.secret)
        self.client.webhooks.test(hook.id)
        during = self.receiver.next()
        self.assertEqual(len(during.headers["webhook-signature"].split()), 2)
        self.assertEqual(verify_webhook(hook.secret, *during).type, "webhook.test")
        self.assertEqual(verify_webhook(rotated.secret, *during).type, "webhook.test")

        def delivered() -> List[WebhookDelivery]:
            return list(self.client.webhooks.deliveries(hook.id))

        until(lambda: [d.status for d in delivered()] == ["delivered"] * 3, "three deliveries, each delivered")
        newest = delivered()[0]
        self.assertEqual((newest.attempts, newest.last_status_code, newest.last_error, newest.next_attempt_at), (1, 204, None, None))

    def test_deliveries_reads_every_page_newest_first(self) -> None:
        hook = self.create()
        sent = [self.client.webhooks.test(hook.id).id for _ in range(5)]
        for _ in sent:
            self.receiver.next()
        self.assertEqual([d.id for d in self.client.webhooks.deliveries(hook.id, page_size=2)], list(reversed(sent)))
        with self.assertRaises(NotFoundError):
            list(self.client.webhooks.deliveries("wh_no_such_endpoint"))


if __name__ == "__main__":
    unittest.main()
