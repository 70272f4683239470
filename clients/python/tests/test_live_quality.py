"""Quality on live traffic and feedback on the real server (skipped without one). The quality
and feedback routes first write the counts this instance holds, so a single server answers with
every refine made before: no waiting for a flush."""
import datetime
import unittest

from support import live_client, unique

from persona_refine import (
    BadRequestError, ConflictError, Feedback, FeedbackCounts, NotFoundError, QualityRow, RetentionPolicy, Review, TokenCounts,
)

ATTRIBUTES = {"avoid": ["synergy"], "minScore": 95}


def today() -> str:
    return datetime.datetime.now(datetime.timezone.utc).date().isoformat()


class Quality(unittest.TestCase):
    def setUp(self) -> None:
        self.client = live_client()
        self.persona = self.client.personas.create(name=unique("Rated"), attributes=ATTRIBUTES)

    def refine(self, content: str) -> str:
        request_id = self.client.refine(provider="rules", persona_id=self.persona.id, content=content).request_id
        assert request_id is not None
        return request_id

    def test_rates_a_refine_and_counts_it_by_day_and_by_version(self) -> None:
        rated = self.refine("We value synergy here.")
        self.refine("We value teamwork here.")
        given = self.client.feedback.create(request_id=rated, rating="down", corrected_text="We value teamwork here.", comment="jargon")
        self.assertIsInstance(given, Feedback)
        self.assertEqual(
            (given.request_id, given.persona_id, given.version, given.rating, given.corrected_text, given.comment),
            (rated, self.persona.id, 1, "down", "We value teamwork here.", "jargon"),
        )
        self.assertEqual(self.client.quality(self.persona.id), [
            QualityRow(answers=2, mean_score=95.0, below_min_score=1, with_required_findings=1, findings={"avoid": 1},
                       feedback=FeedbackCounts(up=0, down=1), tokens=TokenCounts(input=0, output=0), day=today()),
        ])
        self.client.personas.update(self.persona.id, attributes={"avoid": ["synergy"]})
        self.refine("Plain words.")
        by_version = self.client.quality(self.persona.id, from_=datetime.date.fromisoformat(today()), to=today(), group_by="version")
        self.assertEqual([(row.version, row.day, row.answers, row.mean_score, row.below_min_score, row.feedback) for row in by_version], [
            (1, None, 2, 95.0, 1, FeedbackCounts(0, 1)),
            (2, None, 1, 100.0, 0, FeedbackCounts(0, 0)),
        ])

    def test_a_streamed_answer_is_rated_by_its_request_id_and_a_second_rating_replaces_the_first(self) -> None:
        stream = self.client.refine_stream(provider="rules", persona_id=self.persona.id, content="Plain words.")
        for _ in stream:
            pass
        request_id = stream.result.request_id
        assert request_id is not None
        first = self.client.feedback.create(request_id=request_id, rating="down")
        second = self.client.feedback.create(request_id=request_id, rating="up")
        self.assertNotEqual(first.id, second.id)
        self.assertEqual(self.client.feedback.list(self.persona.id), [second])
        self.assertEqual(self.client.quality(self.persona.id)[0].feedback, FeedbackCounts(up=1, down=0))

    def test_feedback_list_follows_every_page_newest_first_and_keeps_one_rating(self) -> None:
        given = [self.client.feedback.create(request_id=self.refine(f"Answer {i}."), rating=rating)
                 for i, rating in enumerate(["up", "down", "up", "up", "down"])]
        newest_first = list(reversed(given))
        self.assertEqual(self.client.feedback.list(self.persona.id, page_size=2), newest_first)
        self.assertEqual(self.client.feedback.list(self.persona.id), newest_first)
        self.assertEqual(self.client.feedback.list(self.persona.id, rating="down", page_size=1), [f for f in newest_first if f.rating == "down"])

    def test_unknown_request_ids_and_personas_and_a_wrong_range_raise_the_servers_errors(self) -> None:
        with self.assertRaises(NotFoundError) as unknown:
            self.client.feedback.create(request_id=unique("no-such-request").replace(" ", "-"), rating="up")
        self.assertTrue(unknown.exception.request_id)
        with self.assertRaises(NotFoundError):
            self.client.quality("no-such-persona")
        with self.assertRaises(NotFoundError):
            self.client.feedback.list("no-such-persona")
        with self.assertRaises(BadRequestError) as reversed_range:
            self.client.quality(self.persona.id, from_="2026-03-02", to="2026-03-01")
        self.assertIn("from", str(reversed_range.exception))
        with self.assertRaises(BadRequestError):
            self.client.feedback.create(request_id=self.refine("Hi."), rating="meh")


class ReviewQueue(unittest.TestCase):
    """The queue writes the answers it holds before it answers a list or a resolve: no waiting either."""

    def setUp(self) -> None:
        self.client = live_client()
        self.persona = self.client.personas.create(name=unique("Reviewed"), attributes=ATTRIBUTES)

    def refine(self, content: str) -> str:
        request_id = self.client.refine(provider="rules", persona_id=self.persona.id, content=content).request_id
        assert request_id is not None
        return request_id

    def test_keeps_answers_under_min_score_once_set_and_resolves_one_into_a_sample(self) -> None:
        self.assertEqual(self.client.retention.get(self.persona.id), RetentionPolicy(keep="none", days=30))
        self.refine("Before the policy, synergy.")
        self.assertEqual(self.client.retention.set(self.persona.id, keep="belowMinScore", days=7), RetentionPolicy("belowMinScore", 7))
        low = self.refine("We value synergy here.")
        self.refine("Plain words.")
        self.client.feedback.create(request_id=low, rating="down", comment="jargon")
        [review] = self.client.reviews.list(self.persona.id)
        self.assertIsInstance(review, Review)
        self.assertEqual(
            (review.request_id, review.version, review.endpoint, review.content, review.status, review.feedback, review.sample_id),
            (low, 1, "refine", "We value synergy here.", "open", {"rating": "down", "comment": "jargon"}, None),
        )
        self.assertEqual([v.rule for v in review.violations], ["avoid"])
        resolved = self.client.reviews.resolve(self.persona.id, low, add_sample={"name": "synergy", "expect": {"notContains": ["synergy"]}})
        self.assertEqual(resolved.status, "resolved")
        samples = self.client.personas.samples.get(self.persona.id)
        self.assertEqual([(s["id"], s["name"], s["content"]) for s in samples], [(resolved.sample_id, "synergy", "We value synergy here.")])
        self.assertEqual(self.client.reviews.list(self.persona.id), [])
        self.assertEqual([r.request_id for r in self.client.reviews.list(self.persona.id, status="resolved")], [low])
        with self.assertRaises(ConflictError):
            self.client.reviews.resolve(self.persona.id, low, add_sample={})
        with self.assertRaises(NotFoundError):
            self.client.reviews.resolve(self.persona.id, "not-kept")

    def test_list_follows_every_page_and_keep_none_deletes_what_was_kept(self) -> None:
        self.client.retention.set(self.persona.id, keep="all", days=1)
        request_ids = [self.refine(f"Answer {i}.") for i in range(5)]
        self.assertEqual([r.request_id for r in self.client.reviews.list(self.persona.id, page_size=2)], list(reversed(request_ids)))
        self.client.retention.set(self.persona.id, keep="none", days=1)
        self.assertEqual(self.client.reviews.list(self.persona.id), [])
        with self.assertRaises(BadRequestError):
            self.client.retention.set(self.persona.id, keep="some", days=1)


if __name__ == "__main__":
    unittest.main()
