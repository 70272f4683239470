"""Retries, idempotency, redirects, byte caps and hostile answers, against a scripted server."""
import os
import time
import unittest
from unittest import mock

from support import PROVIDER_KEY, SERVICE_KEY, ScriptedServer, answer, drop, endless, trickle

from persona_refine import (
    AnswerTooLargeError, ApiError, APIConnectionError, APITimeoutError, BadRequestError, ConflictError, Fallback, Judge,
    NotFoundError, PermissionError, PersonaRefine, ProviderError, RateLimitError, RedirectError,
)

PERSONA = {"id": "p1", "name": "Acme", "attributes": {}}


class Retries(unittest.TestCase):
    def test_retries_503_and_502_with_the_same_idempotency_key(self) -> None:
        with ScriptedServer(answer(503, {"message": "busy"}), answer(502, {"message": "hiccup"}), answer(201, PERSONA, {"ETag": '"1"'})) as server:
            persona = server.client().personas.create(name="Acme")
        self.assertEqual((persona.id, persona.etag), ("p1", '"1"'))
        keys = {r.headers.get("Idempotency-Key") for r in server.requests}
        self.assertEqual(len(server.requests), 3)
        self.assertEqual(len(keys), 1)
        self.assertRegex(keys.pop() or "", r"^[0-9a-f-]{36}$")

    def test_each_call_gets_its_own_key_and_get_and_put_none(self) -> None:
        with ScriptedServer(answer(201, PERSONA), answer(201, PERSONA), answer(200, PERSONA), answer(200, {"production": 1}), answer(204)) as server:
            client = server.client()
            client.personas.create(name="A")
            client.personas.create(name="B")
            client.personas.get("p1")
            client.personas.labels.set("p1", "production", 1)
            client.personas.delete("p1")
        keys = [r.headers.get("Idempotency-Key") for r in server.requests]
        self.assertNotEqual(keys[0], keys[1])
        self.assertEqual(keys[2:4], [None, None])
        self.assertIsNotNone(keys[4])
        self.assertEqual([r.method for r in server.requests], ["POST", "POST", "GET", "PUT", "DELETE"])

    def test_retries_a_gateway_504_with_the_same_idempotency_key(self) -> None:
        with ScriptedServer(answer(504, {"message": "gateway timeout"}), answer(201, PERSONA)) as server:
            self.assertEqual(server.client().personas.create(name="Acme").id, "p1")
        keys = [r.headers.get("Idempotency-Key") for r in server.requests]
        self.assertEqual(len(keys), 2)
        self.assertRegex(keys[0] or "", r"^[0-9a-f-]{36}$")
        self.assertEqual(keys[1], keys[0])

    def test_max_retries_0_makes_one_attempt_at_a_504(self) -> None:
        with ScriptedServer(*[answer(504, {"message": "gateway timeout"})] * 2) as server:
            with self.assertRaises(ProviderError):
                server.client(max_retries=0).personas.create(name="Acme")
        self.assertEqual(len(server.requests), 1)

    def test_honours_retry_after_on_429(self) -> None:
        with ScriptedServer(answer(429, {"message": "slow down"}, {"Retry-After": "1"}), answer(200, PERSONA)) as server:
            started = time.monotonic()
            server.client().personas.get("p1")
            self.assertGreaterEqual(time.monotonic() - started, 1.0)
        self.assertEqual(len(server.requests), 2)

    def test_gives_up_after_max_retries_with_the_last_error(self) -> None:
        with ScriptedServer(*[answer(503, {"message": "busy"}, {"Retry-After": "0"})] * 5) as server:
            with self.assertRaises(ProviderError) as raised:
                server.client(max_retries=1).personas.get("p1")
        self.assertEqual((raised.exception.status, len(server.requests)), (503, 2))

    def test_does_not_retry_what_would_fail_again(self) -> None:
        for status, error in ((400, BadRequestError), (404, NotFoundError), (500, ApiError)):
            with self.subTest(status=status), ScriptedServer(*[answer(status, {"message": "no"})] * 3) as server:
                with self.assertRaises(error):
                    server.client().personas.get("p1")
                self.assertEqual(len(server.requests), 1)

    def test_retries_a_409_only_when_it_sent_an_idempotency_key(self) -> None:
        with ScriptedServer(answer(409, {"message": "in progress"}, {"Retry-After": "0"}), answer(201, PERSONA)) as server:
            server.client().personas.create(name="A")
        self.assertEqual(len(server.requests), 2)
        with ScriptedServer(answer(409, {"message": "gated"}), answer(200, {})) as server:
            with self.assertRaises(ConflictError):
                server.client().personas.labels.set("p1", "production", 2)
        self.assertEqual(len(server.requests), 1)

    def test_retries_a_dropped_connection(self) -> None:
        with ScriptedServer(drop, answer(200, PERSONA)) as server:
            self.assertEqual(server.client().personas.get("p1").name, "Acme")
        self.assertEqual(len(server.requests), 2)

    def test_an_unreachable_server_is_a_connection_error(self) -> None:
        with ScriptedServer() as server:
            url = server.url
        with self.assertRaises(APIConnectionError) as raised:
            PersonaRefine(url, SERVICE_KEY, max_retries=0).personas.get("p1")
        self.assertEqual(raised.exception.status, 0)

    def test_the_timeout_bounds_the_call(self) -> None:
        with ScriptedServer(endless) as server:
            started = time.monotonic()
            with self.assertRaises((APITimeoutError, AnswerTooLargeError)):
                server.client(timeout=0.5).personas.list()
            self.assertLess(time.monotonic() - started, 5)

    def test_the_timeout_bounds_an_answer_that_trickles(self) -> None:
        with ScriptedServer(trickle) as server:
            started = time.monotonic()
            with self.assertRaises(APITimeoutError):
                server.client(timeout=0.5).personas.get("p1")
            self.assertLess(time.monotonic() - started, 2)


class Answers(unittest.TestCase):
    def test_refuses_a_redirect_and_never_follows_it(self) -> None:
        with ScriptedServer(answer(200, PERSONA)) as elsewhere, ScriptedServer(answer(307, None, {"Location": elsewhere.url + "/v1/personas/p1"})) as server:
            with self.assertRaises(RedirectError) as raised:
                server.client().personas.get("p1")
            self.assertEqual(elsewhere.requests, [])
        self.assertEqual(raised.exception.status, 307)
        self.assertIn(elsewhere.url, raised.exception.message)

    def test_stops_reading_past_the_byte_cap(self) -> None:
        with ScriptedServer(endless) as server:
            with self.assertRaises(AnswerTooLargeError) as raised:
                server.client(max_answer_bytes=100_000).personas.list()
        self.assertEqual(raised.exception.limit_bytes, 100_000)

    def test_a_declared_length_over_the_cap_is_refused_unread(self) -> None:
        with ScriptedServer(answer(200, raw=b"[" + b" " * 2000 + b"]")) as server:
            with self.assertRaises(AnswerTooLargeError):
                server.client(max_answer_bytes=1000).keys.list()

    def test_a_body_of_another_shape_is_an_api_error(self) -> None:
        hostile = [answer(200, raw=b"<html>"), answer(200, []), answer(200, {"id": 1}), answer(200, {"id": "p", "name": "n", "attributes": []}), answer(200, raw=b"")]
        for step in hostile:
            with self.subTest(), ScriptedServer(step) as server:
                with self.assertRaises(ApiError) as raised:
                    server.client().personas.get("p1")
                self.assertEqual(raised.exception.status, 200)

    def test_maps_statuses_to_their_errors(self) -> None:
        with ScriptedServer(answer(403, {"message": 'this key lacks the scope "keys:admin"'}, {"X-Request-Id": "req-1"})) as server:
            with self.assertRaises(PermissionError) as raised:
                server.client().keys.list()
        error = raised.exception
        self.assertEqual((error.status, error.scope, error.request_id), (403, "keys:admin", "req-1"))
        with ScriptedServer(answer(429, {"message": "budget"}, {"Retry-After": "30"})) as server:
            with self.assertRaises(RateLimitError) as limited:
                server.client(timeout=5).personas.get("p1")
        self.assertEqual(limited.exception.retry_after, 30.0)
        self.assertEqual(len(server.requests), 1, "a wait past the deadline is not waited")

    def test_a_provider_failure_says_so(self) -> None:
        with ScriptedServer(answer(502, {"message": 'provider "openai" failed'}, {"X-Error-Source": "provider"})) as server:
            with self.assertRaises(ProviderError) as raised:
                server.client(max_retries=0).refine(provider="openai", persona_id="p1", content="x", provider_api_key=PROVIDER_KEY)
        self.assertEqual(raised.exception.source, "provider")


class Secrets(unittest.TestCase):
    def test_no_key_in_an_error_its_str_or_repr(self) -> None:
        echo = {"message": f"bad keys {PROVIDER_KEY} and {SERVICE_KEY}"}
        with ScriptedServer(answer(400, echo)) as server:
            with self.assertRaises(BadRequestError) as raised:
                server.client().refine(provider="openai", persona_id="p1", content="x", provider_api_key=PROVIDER_KEY)
        for text in (str(raised.exception), repr(raised.exception), raised.exception.message, repr(raised.exception.args)):
            self.assertNotIn(PROVIDER_KEY, text)
            self.assertNotIn(SERVICE_KEY, text)

    def test_the_client_repr_hides_its_key(self) -> None:
        client = PersonaRefine("http://127.0.0.1:9", SERVICE_KEY)
        self.assertNotIn(SERVICE_KEY, repr(client))
        self.assertNotIn(SERVICE_KEY, repr(vars(client)))
        for holder in (Fallback("openai", PROVIDER_KEY), Judge("openai", PROVIDER_KEY)):
            self.assertNotIn(PROVIDER_KEY, repr(holder))

    def test_a_key_with_a_newline_is_refused_unsent_and_unquoted(self) -> None:
        with self.assertRaises(ValueError) as raised:
            PersonaRefine("http://127.0.0.1:9", SERVICE_KEY + "\n")
        self.assertNotIn(SERVICE_KEY, str(raised.exception))
        with ScriptedServer() as server:
            with self.assertRaises(ValueError) as refused:
                server.client().refine(provider="openai", persona_id="p", content="x", provider_api_key=PROVIDER_KEY + "\r\n")
            self.assertEqual(server.requests, [])
        self.assertNotIn(PROVIDER_KEY, str(refused.exception))


class Configuration(unittest.TestCase):
    def test_reads_the_environment(self) -> None:
        with ScriptedServer(answer(200, PERSONA)) as server:
            with mock.patch.dict(os.environ, {"PERSONA_REFINE_URL": server.url + "/v1/", "PERSONA_REFINE_API_KEY": SERVICE_KEY}):
                PersonaRefine().personas.get("p1")
        self.assertEqual(server.requests[0].path, "/v1/personas/p1")
        self.assertEqual(server.requests[0].headers["Authorization"], f"Bearer {SERVICE_KEY}")

    def test_says_what_is_missing(self) -> None:
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaisesRegex(ValueError, "PERSONA_REFINE_URL and PERSONA_REFINE_API_KEY"):
                PersonaRefine()
            with self.assertRaisesRegex(ValueError, "PERSONA_REFINE_API_KEY"):
                PersonaRefine("http://127.0.0.1:9")
            with self.assertRaisesRegex(ValueError, "http"):
                PersonaRefine("127.0.0.1:9", SERVICE_KEY)


if __name__ == "__main__":
    unittest.main()
