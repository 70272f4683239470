"""Evaluations, API keys and usage on the real server (skipped without one)."""
import datetime
import unittest

from support import PROVIDER_KEY, live_client, unique

from persona_refine import ApiKey, AuthenticationError, ConflictError, EvalRun, IssuedApiKey, NotFoundError, PersonaRefine, UsageRow


class Evals(unittest.TestCase):
    def test_start_wait_and_get_a_run(self) -> None:
        client = live_client()
        persona = client.personas.create(name=unique("Evaluated"), attributes={"vocabulary": {"customers": "members"}})
        samples = client.personas.samples.replace(persona.id, [
            {"name": "welcome", "content": "Dear customers,", "expect": {"contains": ["members"]}},
            {"name": "plain", "content": "Hello there."},
        ])
        self.assertEqual([s["name"] for s in samples], ["welcome", "plain"])
        started = client.evals.start(persona.id, "openai", PROVIDER_KEY, model="gpt-test")
        self.assertIsInstance(started, EvalRun)
        self.assertIn(started.status, ("queued", "running", "completed"))
        self.assertIsNone(started.results)
        run = client.evals.wait(persona.id, started.id)
        self.assertEqual((run.status, run.progress, run.version), ("completed", {"done": 2, "total": 2}, 1))
        self.assertEqual(len(run.results or []), 2)
        self.assertEqual(client.evals.get(persona.id, started.id), run)
        with self.assertRaises(ConflictError):
            client.evals.cancel(persona.id, started.id)
        with self.assertRaises(NotFoundError):
            client.evals.get(persona.id, "no-such-run")


class Keys(unittest.TestCase):
    def test_create_list_rotate_delete(self) -> None:
        client = live_client()
        issued = client.keys.create(name=unique("ci"), scopes=["personas:read"], tokens_per_day=1000)
        self.assertIsInstance(issued, IssuedApiKey)
        self.assertTrue(issued.secret.startswith(issued.prefix))
        self.assertNotIn(issued.secret, repr(issued))
        self.assertEqual((issued.scopes, issued.limits.tokens_per_day, issued.limits.refines_per_minute), (["personas:read"], 1000, None))
        listed = {key.id: key for key in client.keys.list()}
        self.assertIsInstance(listed[issued.id], ApiKey)
        self.assertNotIsInstance(listed[issued.id], IssuedApiKey)
        PersonaRefine(client.base_url, issued.secret).personas.list()
        rotated = client.keys.rotate(issued.id)
        self.assertEqual(rotated.id, issued.id)
        self.assertNotEqual(rotated.secret, issued.secret)
        self.assertEqual(client.keys.get(issued.id).name, issued.name)
        client.keys.delete(issued.id)
        with self.assertRaises(AuthenticationError):
            PersonaRefine(client.base_url, rotated.secret, max_retries=0).personas.list()
        self.assertNotIn(issued.id, [key.id for key in client.keys.list()])


class Usage(unittest.TestCase):
    def test_counts_the_refines_of_the_month(self) -> None:
        client = live_client()
        persona = client.personas.create(name=unique("Counted"))
        client.refine(provider="rules", persona_id=persona.id, content="Hi")
        today = datetime.datetime.now(datetime.timezone.utc).date()
        rows = client.usage(from_=today, to=today)
        self.assertTrue(all(isinstance(row, UsageRow) for row in rows))
        rules = [row for row in rows if row.provider == "rules" and row.endpoint == "refine"]
        self.assertGreaterEqual(sum(row.refines for row in rules), 1)
        self.assertEqual({row.day for row in rules}, {today.isoformat()})
        self.assertTrue(all(row.key_id for row in client.usage(group_by="key")))


if __name__ == "__main__":
    unittest.main()
