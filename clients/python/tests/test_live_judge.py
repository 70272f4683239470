"""The judge (docs/voice-score.md, "The judge") on the real server: a judged refine, streamed or
not, and a judged check carry the ratings; a judge that fails leaves the call a success that says
why, without the key. Also a stream left early: the server stops its provider call; and, on a
scripted server, the judge headers' percent-decoding. The fake provider rates every attribute 4;
a model ``fake-<mode>`` picks its failure."""
import re
import time
import unittest
import urllib.request
from typing import Dict

from support import PROVIDER_KEY, answer, live_client, ScriptedServer, unique

from persona_refine import BadRequestError, CheckResult, Judge, RefineDelta, RefineResult

#: Two descriptive attributes for the judge to rate, and a rule.
VOICE = {"tone": "warm", "description": "A friendly help desk", "vocabulary": {"customers": "members"}}
JUDGE_KEY = PROVIDER_KEY + "-judge"


def leaks(text: str) -> bool:
    return any(fragment in text for fragment in (PROVIDER_KEY, PROVIDER_KEY[-12:], JUDGE_KEY[-12:]))


class JudgedRefine(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()
        self.persona = self.client.personas.create(name=unique("Judged"), attributes=VOICE)

    def refine(self, **options: object) -> RefineResult:
        return self.client.refine(
            provider="openai", model="gpt-test", persona_id=self.persona.id, content="Hi customers", provider_api_key=PROVIDER_KEY, **options
        )

    def test_judge_true_rates_with_the_refines_own_provider(self) -> None:
        unjudged, judged = self.refine(), self.refine(judge=True)
        self.assertEqual((unjudged.ratings, unjudged.judge_error, unjudged.judge_warning), (None, None, None))
        self.assertEqual(judged.ratings, {"tone": 4, "description": 4})
        self.assertEqual((judged.judge_error, judged.judge_warning), (None, None))
        # The voice (4 of 5 → 75) pulls the score under the unjudged one.
        self.assertLess(judged.score, unjudged.score)
        self.assertEqual(judged.usage.provider_calls, unjudged.usage.provider_calls + 1)

    def test_a_judge_of_its_own_rates_with_its_provider_and_key(self) -> None:
        result = self.refine(judge=Judge("anthropic", JUDGE_KEY, "claude-test"))
        self.assertEqual((result.provider, result.ratings, result.judge_error), ("openai", {"tone": 4, "description": 4}, None))
        rows = {(row.provider, row.model): row for row in self.client.usage()}
        self.assertIn(("anthropic", "claude-test"), rows)

    def test_a_streamed_refine_is_judged_before_done(self) -> None:
        with self.client.refine_stream(provider="openai", model="gpt-test", persona_id=self.persona.id, content="Hi customers", provider_api_key=PROVIDER_KEY, judge=True) as stream:
            text = "".join(piece.text for piece in stream)
        self.assertEqual(text, stream.result.response)
        self.assertEqual((stream.result.ratings, stream.result.judge_error), ({"tone": 4, "description": 4}, None))
        self.assertEqual(stream.result.score, self.refine(judge=True).score)

    def test_nothing_to_rate_is_a_warning_not_a_call(self) -> None:
        rules_only = self.client.personas.create(name=unique("Rules only"), attributes={"avoid": ["synergy"]})
        whole = self.client.refine(provider="openai", model="gpt-test", persona_id=rules_only.id, content="Hi", provider_api_key=PROVIDER_KEY, judge=True)
        with self.client.refine_stream(provider="openai", model="gpt-test", persona_id=rules_only.id, content="Hi", provider_api_key=PROVIDER_KEY, judge=True) as stream:
            list(stream)
        for result in (whole, stream.result):
            self.assertEqual((result.ratings, result.judge_error, result.usage.provider_calls), ({}, None, 1))
            self.assertIn("has no descriptive attributes", result.judge_warning or "")

    def test_a_failing_judge_leaves_the_refine_a_success_that_says_why_without_the_key(self) -> None:
        # The fake's refusal echoes part of the key it was sent; the service scrubs it.
        failing = Judge("openai", JUDGE_KEY, "fake-rejectKey")
        whole = self.refine(judge=failing)
        with self.client.refine_stream(provider="openai", model="gpt-test", persona_id=self.persona.id, content="Hi customers", provider_api_key=PROVIDER_KEY, judge=failing) as stream:
            list(stream)
        for result in (whole, stream.result):
            self.assertIn("members", result.response)
            self.assertIsNone(result.ratings)
            self.assertRegex(result.judge_error or "", r'^provider "openai" rejected')
            self.assertFalse(leaks(f"{result} {result!r} {result.judge_error}"))

    def test_a_judge_the_service_refuses_is_a_bad_request_without_the_key(self) -> None:
        not_ascii = PROVIDER_KEY + "-é"
        with self.assertRaises(BadRequestError) as refused_key:
            self.refine(judge=Judge("anthropic", not_ascii, "claude-test"))
        with self.assertRaises(BadRequestError) as rules_judge:
            self.client.refine(provider="rules", persona_id=self.persona.id, content="Hi customers", judge=True)
        with self.assertRaises(BadRequestError) as refused_on_check:
            self.client.check(persona_id=self.persona.id, content="Hi", judge=Judge("anthropic", not_ascii))
        for error in (refused_key.exception, rules_judge.exception, refused_on_check.exception):
            self.assertEqual(error.status, 400)
            self.assertFalse(leaks(f"{error} {error!r} {error.message}"), error)


class JudgedCheck(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()
        self.persona = self.client.personas.create(name=unique("Checked"), attributes=VOICE)

    def test_a_judged_check_has_the_voice_score_and_the_ratings(self) -> None:
        plain = self.client.check(persona_id=self.persona.id, content="Hi members")
        judged = self.client.check(persona_id=self.persona.id, content="Hi members", judge=Judge("anthropic", JUDGE_KEY, "claude-test"))
        self.assertIsInstance(judged, CheckResult)
        self.assertNotIn("voice", plain.scores)
        self.assertIsNone(plain.judge)
        self.assertEqual(judged.scores["voice"], 75)
        self.assertLess(judged.score, plain.score)
        self.assertEqual((judged.judge or {}).get("provider"), "anthropic")
        ratings = {r["attribute"]: r["rating"] for r in (judged.judge or {}).get("ratings", [])}
        self.assertEqual(ratings, {"tone": 4, "description": 4})

    def test_a_failing_judge_leaves_the_check_a_success_without_the_key(self) -> None:
        result = self.client.check(persona_id=self.persona.id, content="Hi members", judge=Judge("anthropic", JUDGE_KEY, "fake-rejectKey"))
        self.assertNotIn("voice", result.scores)
        self.assertRegex((result.judge or {}).get("error", ""), r'^provider "anthropic" rejected')
        self.assertFalse(leaks(f"{result} {result!r}"))


def metrics(client_url: str) -> Dict[str, float]:
    """The server's Prometheus counters, by sample (name and labels)."""
    with urllib.request.urlopen(client_url.rstrip("/") + "/metrics", timeout=10) as response:
        text = response.read().decode()
    return {match[1]: float(match[2]) for match in re.finditer(r"^(\w+\{[^}]*\}) (\S+)$", text, re.MULTILINE)}


class StreamLeftEarly(unittest.TestCase):
    def test_leaving_the_with_block_stops_the_servers_provider_call(self) -> None:
        client = live_client()
        persona = client.personas.create(name=unique("Left early"), attributes={})
        samples = {
            "left": 'provider_calls_total{provider="openai",outcome="client_closed_request"}',
            "499": 'http_requests_total{method="POST",route="/v1/refine",status="499"}',
            "timed out": 'provider_calls_total{provider="openai",outcome="provider_timeout"}',
        }
        before = metrics(client.base_url)
        # The fake streams 60 pieces, then nothing until the provider deadline: only the client's
        # leaving can end this call before that deadline, whose outcome would be a timeout.
        with client.refine_stream(provider="openai", model="fake-streamStall-after-60", persona_id=persona.id, content="The help desk moved.", provider_api_key=PROVIDER_KEY) as stream:
            self.assertIsInstance(next(stream), RefineDelta)
        give_up = time.monotonic() + 10
        while True:
            after = metrics(client.base_url)
            counted = {name: after.get(sample, 0) - before.get(sample, 0) for name, sample in samples.items()}
            if (counted["left"] and counted["499"]) or counted["timed out"] or time.monotonic() > give_up:
                break
            time.sleep(0.05)  # sleeps because the server counts the close on its own time: polled, not waited out
        self.assertEqual(counted, {"left": 1, "499": 1, "timed out": 0})


class JudgeHeaders(unittest.TestCase):
    def test_judge_headers_are_read_percent_decoded(self) -> None:
        headers = {
            "X-Persona-Judge-Error": "provider%20said%20%E2%80%9Cno%E2%80%9D%3A%20100%25",
            "X-Persona-Ratings": "my%20key=3,tone=5",
            "X-Persona-Version": "1",
        }
        with ScriptedServer(answer(200, {"response": "Hi"}, headers)) as server:
            result = server.client().refine(provider="openai", persona_id="p", content="Hi", provider_api_key=PROVIDER_KEY, judge=True)
        self.assertEqual((result.judge_error, result.ratings), ("provider said “no”: 100%", {"my key": 3, "tone": 5}))


if __name__ == "__main__":
    unittest.main()
