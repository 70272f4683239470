"""refine_stream and the event-stream parser, against a scripted server."""
import threading
import unittest
from typing import List

from support import PROVIDER_KEY, ScriptedServer, answer, events, sse

from persona_refine import AnswerTooLargeError, ApiError, APIConnectionError, ProviderError, RateLimitError, RefineDelta, RefineStream
from persona_refine._sse import EventStreamParser, ServerSentEvent

DONE = {"response": "Hi members", "violations": {"avoid": 1}, "score": 90, "usage": {"inputTokens": 3, "outputTokens": 2, "providerCalls": 1}}


class Streams(unittest.TestCase):
    def stream(self, server: ScriptedServer, **options: int) -> RefineStream:
        return server.client(**options).refine_stream(provider="openai", persona_id="p1", content="Hi customers", provider_api_key=PROVIDER_KEY)

    def test_yields_pieces_then_the_result(self) -> None:
        with ScriptedServer(events(": stream open\n\n", sse("delta", {"text": "Hi "}), sse("delta", {"text": "members"}), sse("done", DONE))) as server:
            with self.stream(server) as stream:
                pieces = list(stream)
        self.assertEqual(pieces, [RefineDelta("Hi "), RefineDelta("members")])
        result = stream.result
        self.assertEqual((result.response, result.violations, result.score, result.persona_version, result.request_id), ("Hi members", {"avoid": 1}, 90, 4, "req-stream"))
        self.assertEqual((result.usage.input_tokens, result.usage.provider_calls), (3, 1))
        body = server.requests[0].body.decode()
        self.assertIn('"stream": true', body)
        self.assertEqual(server.requests[0].headers["Accept"], "text/event-stream")

    def test_retries_before_the_first_piece_with_the_same_key(self) -> None:
        first_error = events(sse("error", {"error": 503, "message": "overloaded"}))
        with ScriptedServer(answer(502, {"message": "down"}), first_error, events(sse("delta", {"text": "ok"}), sse("done", {**DONE, "response": "ok"}))) as server:
            with self.stream(server) as stream:
                self.assertEqual("".join(piece.text for piece in stream), "ok")
        self.assertEqual(len(server.requests), 3)
        self.assertEqual(len({r.headers["Idempotency-Key"] for r in server.requests}), 1)

    def test_never_retries_after_the_first_piece(self) -> None:
        with ScriptedServer(events(sse("delta", {"text": "Hi"})), events(sse("done", DONE))) as server:
            with self.stream(server) as stream:
                self.assertEqual(next(stream).text, "Hi")
                with self.assertRaises(APIConnectionError):
                    next(stream)
            with self.assertRaises(RuntimeError):
                stream.result
        self.assertEqual(len(server.requests), 1)

    def test_an_error_event_is_the_matching_api_error(self) -> None:
        frames = (sse("delta", {"text": "Hi"}), sse("error", {"error": 429, "message": f'provider "openai" refused {PROVIDER_KEY}'}))
        with ScriptedServer(events(*frames)) as server:
            with self.stream(server) as stream, self.assertRaises(RateLimitError) as raised:
                list(stream)
        self.assertEqual((raised.exception.status, raised.exception.source, raised.exception.request_id), (429, "provider", "req-stream"))
        self.assertNotIn(PROVIDER_KEY, str(raised.exception))

    def test_a_retryable_error_event_first_is_retried_then_raised(self) -> None:
        failing = [events(sse("error", {"error": 502, "message": "provider down"}))] * 2
        with ScriptedServer(*failing) as server:
            with self.assertRaises(ProviderError):
                list(self.stream(server, max_retries=1))
        self.assertEqual(len(server.requests), 2)

    def test_a_stream_without_done_is_cut(self) -> None:
        with ScriptedServer(events(sse("delta", {"text": "Hi"}), "event: done\ndata: {\"respo")) as server:
            with self.assertRaises(APIConnectionError):
                list(self.stream(server))

    def test_a_malformed_event_is_an_api_error(self) -> None:
        for frame in ("event: delta\ndata: nope\n\n", sse("delta", {"no": "text"}), sse("done", ["array"])):
            with self.subTest(frame=frame), ScriptedServer(events(frame)) as server:
                with self.assertRaises(ApiError):
                    list(self.stream(server, max_retries=0))

    def test_a_json_answer_is_not_a_stream(self) -> None:
        with ScriptedServer(answer(200, DONE)) as server:
            with self.assertRaisesRegex(ApiError, "not an event stream"):
                list(self.stream(server, max_retries=0))

    def test_an_endless_line_is_bounded(self) -> None:
        with ScriptedServer(events(sse("delta", {"text": "a"}), "data: " + "x" * 300_000)) as server:
            with self.assertRaises(AnswerTooLargeError):
                list(self.stream(server, max_answer_bytes=100_000))

    def test_sends_nothing_until_iterated_and_with_closes_early(self) -> None:
        # More than the kernel's socket buffers hold, so the writer notices the hang-up.
        frames = [sse("delta", {"text": f"{i} " + "x" * 4096}) for i in range(8000)]
        hung_up = threading.Event()
        with ScriptedServer(events(*frames, sse("done", DONE), hung_up=hung_up)) as server:
            stream = self.stream(server)
            self.assertEqual(server.requests, [])
            with stream:
                self.assertTrue(next(stream).text.startswith("0 "))
            with self.assertRaises(StopIteration):
                next(stream)
            self.assertTrue(hung_up.wait(10), "the server saw the connection close")
        self.assertEqual(len(server.requests), 1)


class Parser(unittest.TestCase):
    def parse(self, *chunks: bytes) -> List[ServerSentEvent]:
        parser = EventStreamParser(1000)
        found = [event for chunk in chunks for event in parser.push(chunk)]
        return found + parser.end()

    def test_line_ends_split_anywhere(self) -> None:
        text = "event: delta\r\ndata: a\r\n\r\nevent: done\rdata: b\r\r: comment\n\ndata: c\n\n".encode()
        expected = [ServerSentEvent("delta", "a"), ServerSentEvent("done", "b"), ServerSentEvent("message", "c")]
        for cut in range(len(text)):
            self.assertEqual(self.parse(text[:cut], text[cut:]), expected, cut)

    def test_a_character_split_across_chunks(self) -> None:
        text = "data: Grüße 🎉\n\n".encode()
        self.assertEqual(self.parse(*[text[i:i + 1] for i in range(len(text))]), [ServerSentEvent("message", "Grüße 🎉")])

    def test_data_lines_join_and_unknown_fields_are_skipped(self) -> None:
        self.assertEqual(self.parse(b"id: 1\nretry: 5\ndata: a\ndata:b\nevent\n\n"), [ServerSentEvent("message", "a\nb")])

    def test_an_unterminated_last_event_is_dropped(self) -> None:
        self.assertEqual(self.parse(b"data: a\n\ndata: b\n"), [ServerSentEvent("message", "a")])

    def test_a_line_or_an_event_past_the_bound_raises(self) -> None:
        with self.assertRaises(AnswerTooLargeError):
            self.parse(b"x" * 600, b"y" * 600)
        with self.assertRaises(AnswerTooLargeError):
            self.parse(b"data: " + b"z" * 600 + b"\n" + b"data: " + b"z" * 600 + b"\n")


if __name__ == "__main__":
    unittest.main()
