"""verify_webhook against signatures made here as the Standard Webhooks specification describes
them (the live tests verify the server's own), and the webhooks resource against scripted
servers: paging that fetches only what is read, and the calls that are never retried."""
import base64
import datetime
import email.message
import hashlib
import hmac
import json
import os
import unittest
from typing import Callable, Dict, List, Optional

from support import ScriptedServer, answer

from persona_refine import PersonaRefine, ProviderError, WebhookEvent, WebhookVerificationError, verify_webhook

NOW = datetime.datetime(2026, 11, 28, 15, 0, tzinfo=datetime.timezone.utc)
BODY = b'{"type":"label.moved","timestamp":"2026-11-28T15:00:00.000Z","data":{"personaId":"p1","label":"production","fromVersion":6,"toVersion":7,"keyId":"key_1"}}'


def new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(24)).decode()


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret[len("whsec_"):])
    return "v1," + base64.b64encode(hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()).decode()


def signed(secrets: List[str], body: bytes = BODY, at: datetime.datetime = NOW, msg_id: str = "msg_1") -> Dict[str, str]:
    timestamp = int(at.timestamp())
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signature(s, msg_id, timestamp, body) for s in secrets),
    }


class VerifyWebhook(unittest.TestCase):
    def setUp(self) -> None:
        self.secret = new_secret()

    def refused(self, headers: Dict[str, str], body: bytes = BODY, secret: Optional[str] = None, **options: int) -> WebhookVerificationError:
        with self.assertRaises(WebhookVerificationError) as raised:
            verify_webhook(secret or self.secret, headers, body, now=NOW, **options)
        return raised.exception

    def test_returns_the_event_of_a_signed_body_as_bytes_or_text(self) -> None:
        expected = WebhookEvent(
            id="msg_1", type="label.moved", timestamp="2026-11-28T15:00:00.000Z",
            data={"personaId": "p1", "label": "production", "fromVersion": 6, "toVersion": 7, "keyId": "key_1"},
        )
        self.assertEqual(verify_webhook(self.secret, signed([self.secret]), BODY, now=NOW), expected)
        self.assertEqual(verify_webhook(self.secret, signed([self.secret]), BODY.decode(), now=NOW), expected)

    def test_reads_headers_in_any_case_from_a_dict_or_http_servers_message_with_a_repeated_signature_header(self) -> None:
        old, new = self.secret, new_secret()
        headers = signed([new, old])
        self.assertEqual(verify_webhook(old, {k.title(): v for k, v in headers.items()}, BODY, now=NOW).type, "label.moved")
        message = email.message.Message()
        message["Webhook-Id"], message["Webhook-Timestamp"] = headers["webhook-id"], headers["webhook-timestamp"]
        for one in headers["webhook-signature"].split(" "):
            message["Webhook-Signature"] = one
        self.assertEqual(verify_webhook(old, message, BODY, now=NOW).id, "msg_1")
        self.assertEqual(verify_webhook(new, message, BODY, now=NOW).id, "msg_1")

    def test_refuses_a_changed_or_reserialized_body_and_another_secret(self) -> None:
        headers = signed([self.secret])
        reserialized = json.dumps(json.loads(BODY)).encode()
        self.assertNotEqual(reserialized, BODY)
        for body in (BODY.replace(b"production", b"staging"), reserialized):
            self.assertEqual(self.refused(headers, body).reason, "signature")
        self.assertEqual(self.refused(signed([new_secret()])).reason, "signature")
        self.assertEqual(self.refused(dict(headers, **{"webhook-id": "msg_2"})).reason, "signature")

    def test_refuses_a_timestamp_outside_the_tolerance_either_way(self) -> None:
        stale = self.refused(signed([self.secret], at=NOW - datetime.timedelta(seconds=301)))
        self.assertEqual((stale.reason, stale.message[:37]), ("timestamp", "the webhook-timestamp is 301 s old, m"))
        self.assertEqual(self.refused(signed([self.secret], at=NOW + datetime.timedelta(seconds=301))).reason, "timestamp")
        at_the_edge = signed([self.secret], at=NOW - datetime.timedelta(seconds=300))
        self.assertEqual(verify_webhook(self.secret, at_the_edge, BODY, now=NOW).id, "msg_1")
        self.assertEqual(self.refused(at_the_edge, tolerance=60).reason, "timestamp")

    def test_refuses_missing_and_malformed_headers_and_a_signed_body_that_is_no_event(self) -> None:
        headers = signed([self.secret])
        for name in headers:
            self.assertEqual(self.refused({k: v for k, v in headers.items() if k != name}).reason, "missing-header", name)
        self.assertEqual(self.refused(dict(headers, **{"webhook-timestamp": "yesterday"})).reason, "invalid-header")
        self.assertEqual(self.refused(dict(headers, **{"webhook-signature": "v2,abc"})).reason, "invalid-header")
        for body in (b"[1]", b'{"type": "x"}', b"\xff"):
            self.assertEqual(self.refused(signed([self.secret], body), body).reason, "body")

    def test_a_secret_that_is_not_whsec_base64_is_a_value_error_that_does_not_quote_it(self) -> None:
        for secret in (self.secret[len("whsec_"):], "whsec_not base64!", "whsec_==="):
            with self.assertRaises(ValueError) as raised:
                verify_webhook(secret, signed([self.secret]), BODY, now=NOW)
            self.assertNotIsInstance(raised.exception, WebhookVerificationError)
            self.assertNotIn(secret, str(raised.exception))


DELIVERY = {
    "id": "whd_1", "eventId": "msg_1", "type": "webhook.test", "status": "delivered", "attempts": 1,
    "lastStatusCode": 204, "lastError": None, "nextAttemptAt": None, "createdAt": "2026-11-28T15:00:00.000Z",
}


class WebhooksScripted(unittest.TestCase):
    def test_deliveries_fetches_each_page_only_when_the_loop_reaches_it(self) -> None:
        link = {"Link": '</v1/webhooks/wh_1/deliveries?limit=1&cursor=whd_1>; rel="next"'}
        with ScriptedServer(answer(200, [DELIVERY], link), answer(200, [dict(DELIVERY, id="whd_0")])) as server:
            deliveries = server.client().webhooks.deliveries("wh_1", page_size=1)
            self.assertEqual(server.requests, [])
            self.assertEqual(next(deliveries).id, "whd_1")
            self.assertEqual([r.path for r in server.requests], ["/v1/webhooks/wh_1/deliveries?limit=1"])
            self.assertEqual([d.id for d in deliveries], ["whd_0"])
            self.assertEqual(server.requests[1].path, "/v1/webhooks/wh_1/deliveries?limit=1&cursor=whd_1")

    def test_create_test_and_rotate_secret_are_never_retried(self) -> None:
        calls: List[Callable[[PersonaRefine], object]] = [
            lambda c: c.webhooks.create("https://hooks.example.com/x", ["*"]),
            lambda c: c.webhooks.test("wh_1"),
            lambda c: c.webhooks.rotate_secret("wh_1"),
        ]
        for call in calls:
            with ScriptedServer(answer(503, {"error": 503, "message": "busy"}), answer(201, {})) as server:
                with self.assertRaises(ProviderError):
                    call(server.client(max_retries=3))
                self.assertEqual(len(server.requests), 1)

    def test_update_sends_only_what_is_given_and_none_clears_the_description(self) -> None:
        hook = {"id": "wh_1", "url": "https://hooks.example.com/x", "events": ["*"], "description": None, "createdAt": "2026-11-28T15:00:00.000Z", "disabled": False}
        with ScriptedServer(answer(200, hook), answer(200, hook)) as server:
            client = server.client()
            client.webhooks.update("wh_1", description=None)
            client.webhooks.update("wh_1", events=["label.moved"], disabled=False)
            self.assertEqual([json.loads(r.body) for r in server.requests], [{"description": None}, {"events": ["label.moved"], "disabled": False}])
            with self.assertRaises(ValueError):
                client.webhooks.update("wh_1")


if __name__ == "__main__":
    unittest.main()
