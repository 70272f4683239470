"""refine, refine_stream and check on the real server, with the offline rules provider and the
fake provider server (a model ``fake-<mode>`` picks its failure); skipped without a server."""
import unittest

from support import PROVIDER_KEY, SERVICE_KEY, live_client, unique

from persona_refine import (
    AuthenticationError, BadRequestError, CheckResult, Fallback, NotFoundError, PermissionError, PersonaRefine, ProviderError,
    RefineDelta, RefineResult,
)

ATTRIBUTES = {"vocabulary": {"customers": "members"}, "avoid": ["synergy"], "signOff": "Cheers,\nAcme"}


class Refine(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()
        self.persona = self.client.personas.create(name=unique("Refined"), attributes=ATTRIBUTES)

    def test_refines_with_the_rules_provider(self) -> None:
        result = self.client.refine(provider="rules", persona_id=self.persona.id, content="Hi customers, pure synergy.")
        self.assertIsInstance(result, RefineResult)
        self.assertEqual(result.response, "Hi members, pure synergy.\n\nCheers,\nAcme")
        self.assertEqual((result.violations, result.persona_version, result.provider), ({"avoid": 1}, 1, "rules"))
        self.assertIsInstance(result.score, int)
        self.assertEqual(result.usage.provider_calls, 0)
        self.assertTrue(result.request_id)

    def test_refines_through_a_provider_with_the_callers_key(self) -> None:
        result = self.client.refine(provider="openai", persona_id=self.persona.id, content="Thanks, customers!", provider_api_key=PROVIDER_KEY, model="gpt-test")
        self.assertIn("members", result.response)
        self.assertEqual((result.provider, result.model, result.usage.provider_calls), ("openai", "gpt-test", 1))
        self.assertIsNotNone(result.usage.input_tokens)

    def test_pins_a_label_or_a_version(self) -> None:
        self.client.personas.update(self.persona.id, attributes={})
        self.client.personas.labels.set(self.persona.id, "production", 1)
        by_label = self.client.refine(provider="rules", persona_id=self.persona.id, content="Hi customers", persona_label="production")
        by_version = self.client.refine(provider="rules", persona_id=self.persona.id, content="Hi customers", persona_version=2)
        self.assertEqual((by_label.persona_version, by_version.persona_version), (1, 2))
        self.assertIn("members", by_label.response)
        self.assertEqual(by_version.response, "Hi customers")

    def test_falls_back_when_the_provider_is_overloaded(self) -> None:
        result = self.client.refine(
            provider="openai", model="fake-overloaded", persona_id=self.persona.id, content="Hi customers", provider_api_key=PROVIDER_KEY,
            fallbacks=[Fallback("anthropic", PROVIDER_KEY + "-2", "claude-test")],
        )
        self.assertEqual((result.provider, result.model), ("anthropic", "claude-test"))

    def test_a_provider_failure_is_a_provider_error_without_the_key(self) -> None:
        with self.assertRaises(ProviderError) as raised:
            live_client(max_retries=0).refine(
                provider="openai", model="fake-overloaded", persona_id=self.persona.id, content="Hi", provider_api_key=PROVIDER_KEY
            )
        self.assertEqual(raised.exception.source, "provider")
        # The service's own key was fine: a provider refusing the caller's key is a bad request.
        with self.assertRaises(BadRequestError) as refused:
            self.client.refine(provider="openai", model="fake-rejectKey", persona_id=self.persona.id, content="Hi", provider_api_key=PROVIDER_KEY)
        for error in (raised.exception, refused.exception):
            self.assertNotIn(PROVIDER_KEY[-12:], f"{error} {error!r} {error.message}")

    def test_refusals_of_the_service(self) -> None:
        with self.assertRaises(NotFoundError):
            self.client.refine(provider="rules", persona_id="no-such-persona", content="Hi")
        with self.assertRaises(BadRequestError) as bad:
            self.client.refine(provider="openai", persona_id=self.persona.id, content="Hi")
        self.assertEqual(bad.exception.status, 400)
        url = self.client.base_url
        with self.assertRaises(AuthenticationError) as unknown:
            PersonaRefine(url, SERVICE_KEY).personas.list()
        self.assertNotIn(SERVICE_KEY, f"{unknown.exception} {unknown.exception!r}")
        limited = self.client.keys.create(name=unique("refine only"), scopes=["refine"])
        with self.assertRaises(PermissionError) as denied:
            PersonaRefine(url, limited.secret).personas.create(name="Nope")
        self.assertEqual((denied.exception.status, denied.exception.scope), (403, "personas:write"))
        self.client.keys.delete(limited.id)

    def test_streams_pieces_then_the_result(self) -> None:
        with self.client.refine_stream(provider="openai", model="gpt-test", persona_id=self.persona.id, content="Tell our customers the help desk moved.", provider_api_key=PROVIDER_KEY) as stream:
            pieces = list(stream)
        self.assertTrue(all(isinstance(piece, RefineDelta) for piece in pieces))
        self.assertGreater(len(pieces), 1)
        result = stream.result
        self.assertEqual("".join(piece.text for piece in pieces), result.response)
        self.assertIn("members", result.response)
        self.assertEqual((result.persona_version, result.provider, result.usage.provider_calls, result.replaced), (1, "openai", 1, False))
        self.assertIsInstance(result.score, int)

    def test_streams_with_the_rules_provider(self) -> None:
        with self.client.refine_stream(provider="rules", persona_id=self.persona.id, content="Thanks, customers! Synergy.") as stream:
            text = "".join(piece.text for piece in stream)
        self.assertEqual(text, stream.result.response)
        self.assertEqual(stream.result.violations, {"avoid": 1})

    def test_a_stream_that_fails_raises_the_matching_error(self) -> None:
        with self.assertRaises(ProviderError):
            with live_client(max_retries=0).refine_stream(provider="openai", model="fake-overloaded", persona_id=self.persona.id, content="Hi", provider_api_key=PROVIDER_KEY) as stream:
                list(stream)
        with self.assertRaises(NotFoundError):
            list(self.client.refine_stream(provider="rules", persona_id="no-such-persona", content="Hi"))

    def test_checks_a_text(self) -> None:
        failed = self.client.check(persona_id=self.persona.id, content="Pure synergy for customers.")
        self.assertIsInstance(failed, CheckResult)
        self.assertFalse(failed.passed)
        self.assertEqual({(v.rule, v.severity) for v in failed.violations} >= {("avoid", "required")}, True)
        self.assertLess(failed.score, 100)
        self.assertEqual((failed.scores["facts"], failed.warnings, failed.persona_version), (100, [], 1))
        lost = self.client.check(persona_id=self.persona.id, content="Your order shipped.\n\nCheers,\nAcme", original="Your order 4521 shipped.")
        self.assertIn("preserve", [v.rule for v in lost.violations])
        self.assertLess(lost.scores["facts"], 100)
        passed = self.client.check(persona_id=self.persona.id, content="Hello members.\n\nCheers,\nAcme")
        self.assertTrue(passed.passed)


if __name__ == "__main__":
    unittest.main()
