"""Authoring on the real server (docs/rules-and-attributes.md, "Variants" and "Drafting a persona
from samples"): a variant named on refine, stream and check comes back as ``persona_variant``;
``personas.variant`` answers the merge, pinned or not; ``personas.draft`` drafts without storing,
and a failing draft's error never holds the provider key."""
import unittest

from support import PROVIDER_KEY, live_client, unique

from persona_refine import ApiError, BadRequestError, NotFoundError, PersonaDraft

VOICE = {
    "tone": "warm",
    "vocabulary": {"customers": "members"},
    "variants": {"de-DE": {"locale": "de-DE", "vocabulary": {"Kunden": "Mitglieder"}, "signOff": "Viele Grüße"}},
}


class Variants(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()
        self.persona = self.client.personas.create(name=unique("Variants"), attributes=VOICE)

    def test_refine_stream_and_check_name_the_variant_used(self) -> None:
        plain = self.client.refine(provider="rules", persona_id=self.persona.id, content="Hallo Kunden")
        self.assertIsNone(plain.persona_variant)
        german = self.client.refine(provider="rules", persona_id=self.persona.id, content="Hallo Kunden", variant="de-DE")
        self.assertEqual(german.persona_variant, "de-DE")
        self.assertEqual(german.response, "Hallo Mitglieder\n\nViele Grüße")
        stream = self.client.refine_stream(provider="rules", persona_id=self.persona.id, content="Hallo Kunden", variant="de-DE")
        self.assertEqual("".join(delta.text for delta in stream), german.response)
        self.assertEqual(stream.result.persona_variant, "de-DE")
        checked = self.client.check(persona_id=self.persona.id, content="Hallo Kunden", variant="de-DE")
        self.assertEqual(checked.persona_variant, "de-DE")
        self.assertFalse(checked.passed)

    def test_variant_answers_the_merge_pinned_or_not_and_an_unknown_one_is_refused(self) -> None:
        merged = self.client.personas.variant(self.persona.id, "de-DE")
        self.assertEqual((merged.variant, merged.version), ("de-DE", 1))
        self.assertEqual(merged.attributes["vocabulary"], {"customers": "members", "Kunden": "Mitglieder"})
        self.assertEqual(self.client.personas.variant(self.persona.id, "de-DE", persona_version=1).attributes, merged.attributes)
        with self.assertRaises(NotFoundError):
            self.client.personas.variant(self.persona.id, "fr-FR")
        with self.assertRaises(BadRequestError) as refused:
            self.client.refine(provider="rules", persona_id=self.persona.id, content="Hi", variant="fr-FR")
        self.assertIn("de-DE", str(refused.exception))


class Drafts(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()

    def test_a_draft_is_named_as_asked_and_stored_nowhere(self) -> None:
        before = len(self.client.personas.list())
        name = unique("Drafted")
        draft = self.client.personas.draft(["Hi Sam, your export is ready. Cheers, the Acme team"], "openai", PROVIDER_KEY, model="gpt-test", name=name)
        self.assertIsInstance(draft, PersonaDraft)
        self.assertEqual(draft.name, name)
        self.assertIsInstance(draft.attributes, dict)
        self.assertIsInstance(draft.evidence, dict)
        self.assertEqual(len(self.client.personas.list()), before)
        self.assertEqual(self.client.personas.create(draft.name, draft.attributes).name, name)

    def test_a_failing_draft_never_shows_the_key(self) -> None:
        for model in ("fake-rejectKey", "fake-badRequest"):
            with self.assertRaises(ApiError) as failed:
                self.client.personas.draft(["Some text in the voice."], "openai", PROVIDER_KEY, model=model)
            self.assertNotIn(PROVIDER_KEY, str(failed.exception))
            self.assertNotIn(PROVIDER_KEY[-12:], str(failed.exception))


if __name__ == "__main__":
    unittest.main()
