"""Personas, their versions and labels, on the real server (skipped without one)."""
import unittest

from support import live_client, unique

from persona_refine import NotFoundError, Persona, PreconditionFailedError


class Personas(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()

    def test_create_get_update_delete_with_etags(self) -> None:
        created = self.client.personas.create(name=unique("Acme"), attributes={"tone": "warm"})
        self.assertIsInstance(created, Persona)
        self.assertEqual((created.attributes, created.etag), ({"tone": "warm"}, '"1"'))
        self.assertEqual(self.client.personas.get(created.id), created)
        updated = self.client.personas.update(created.id, attributes={"tone": "dry"}, if_match=created.etag)
        self.assertEqual((updated.name, updated.attributes, updated.etag), (created.name, {"tone": "dry"}, '"2"'))
        renamed = self.client.personas.update(created.id, name="Renamed")
        self.assertEqual((renamed.name, renamed.attributes), ("Renamed", {"tone": "dry"}))
        with self.assertRaises(PreconditionFailedError) as stale:
            self.client.personas.update(created.id, name="Lost", if_match=created.etag)
        self.assertEqual(stale.exception.status, 412)
        with self.assertRaises(PreconditionFailedError):
            self.client.personas.delete(created.id, if_match=created.etag)
        self.client.personas.delete(created.id, if_match=renamed.etag)
        with self.assertRaises(NotFoundError) as gone:
            self.client.personas.get(created.id)
        self.assertEqual(gone.exception.status, 404)
        self.assertTrue(gone.exception.request_id)

    def test_list_follows_every_page(self) -> None:
        ids = [self.client.personas.create(name=unique(f"Paged {i}")).id for i in range(5)]
        listed = [persona.id for persona in self.client.personas.list(page_size=2)]
        self.assertEqual([i for i in listed if i in ids], ids)
        self.assertEqual(len(listed), len(set(listed)))
        self.assertEqual(listed, [persona.id for persona in self.client.personas.list()])

    def test_versions_list_get_and_restore(self) -> None:
        persona = self.client.personas.create(name=unique("Versioned"), attributes={"tone": "one"})
        self.client.personas.update(persona.id, attributes={"tone": "two"})
        self.client.personas.update(persona.id, attributes={"tone": "three"})
        versions = self.client.personas.versions.list(persona.id, page_size=2)
        self.assertEqual([(v.version, v.attributes["tone"]) for v in versions], [(1, "one"), (2, "two"), (3, "three")])
        self.assertEqual(self.client.personas.versions.get(persona.id, 2).attributes, {"tone": "two"})
        restored = self.client.personas.versions.restore(persona.id, 1)
        self.assertEqual((restored.attributes, restored.etag), ({"tone": "one"}, '"4"'))
        with self.assertRaises(NotFoundError):
            self.client.personas.versions.get(persona.id, 99)

    def test_labels_get_set_delete(self) -> None:
        persona = self.client.personas.create(name=unique("Labelled"))
        self.client.personas.update(persona.id, attributes={"tone": "two"})
        self.assertEqual(self.client.personas.labels.get(persona.id), {})
        self.assertEqual(self.client.personas.labels.set(persona.id, "staging", 1), {"staging": 1})
        self.assertEqual(self.client.personas.labels.set(persona.id, "staging", 2), {"staging": 2})
        self.client.personas.labels.delete(persona.id, "staging")
        self.assertEqual(self.client.personas.labels.get(persona.id), {})
        with self.assertRaises(NotFoundError):
            self.client.personas.labels.delete(persona.id, "staging")


if __name__ == "__main__":
    unittest.main()
