"""What the tests share: the package on the path, the live server from the environment, and a
scripted HTTP server on loopback for what a real server never does (a 503 on cue, a redirect,
an endless answer, a hostile body), as sdk/test/helpers/scripted-server.ts is for the TS SDK."""
import json
import os
import sys
import threading
import time
import unittest
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, NamedTuple, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from persona_refine import PersonaRefine  # noqa: E402

#: Fake provider keys, distinctive so any echo of one can be found.
PROVIDER_KEY = "sk-FAKE-not-a-key-Qz7Hq2Zx9Lm4Vb8Nc1Pw"
SERVICE_KEY = "prk_FAKE_not_a_key_Vq8Lw3Rn6Tz1Hk5Mb9Xc2"


def live_client(**options: Any) -> PersonaRefine:
    """A client of the real server the harness started (test/clients/python-client.test.ts);
    the test is skipped when run without one."""
    url, key = os.environ.get("PERSONA_REFINE_TEST_URL"), os.environ.get("PERSONA_REFINE_TEST_API_KEY")
    if not url or not key:
        raise unittest.SkipTest("PERSONA_REFINE_TEST_URL and PERSONA_REFINE_TEST_API_KEY are not set: no live server")
    return PersonaRefine(url, key, **options)


def unique(name: str) -> str:
    return f"{name} {uuid.uuid4().hex[:8]}"


class Recorded(NamedTuple):
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


Step = Callable[[BaseHTTPRequestHandler], None]


def answer(status: int, body: Any = None, headers: Optional[Dict[str, str]] = None, raw: Optional[bytes] = None) -> Step:
    """A whole answer: JSON ``body`` (or ``raw`` bytes) with ``headers``."""
    payload = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())

    def step(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        sent = {"Content-Type": "application/json", "Content-Length": str(len(payload)), **(headers or {})}
        for name, value in sent.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(payload)

    return step


def drop(handler: BaseHTTPRequestHandler) -> None:
    """Closes the connection without a byte of answer."""
    handler.close_connection = True


def endless(handler: BaseHTTPRequestHandler) -> None:
    """A 200 that never ends (no Content-Length), until the client hangs up."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()
    chunk = b"[" + b"0," * 32768
    try:
        while True:
            handler.wfile.write(chunk)
    except OSError:
        pass


def trickle(handler: BaseHTTPRequestHandler) -> None:
    """A 200 that sends a byte every 50 ms, each well within any socket timeout."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()
    try:
        for _ in range(200):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.05)  # sleeps because pacing the bytes is what this server is for
    except OSError:
        pass


def events(*frames: str, hung_up: Optional[threading.Event] = None) -> Step:
    """A text/event-stream of ``frames`` (each written and flushed alone); the connection then
    closes, which is a cut when no ``done`` came. ``hung_up`` is set if the client closed first."""

    def step(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("X-Request-Id", "req-stream")
        handler.send_header("X-Persona-Version", "4")
        handler.end_headers()
        try:
            for frame in frames:
                handler.wfile.write(frame.encode())
                handler.wfile.flush()
        except OSError:
            if hung_up is not None:
                hung_up.set()

    return step


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


class ScriptedServer:
    """Answers each request with the next step; ``requests`` holds what it received."""

    def __init__(self, *steps: Step) -> None:
        self.steps: List[Step] = list(steps)
        self.requests: List[Recorded] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                scripted.requests.append(Recorded(self.command, self.path, dict(self.headers.items()), body))
                step = scripted.steps.pop(0) if scripted.steps else answer(500, {"message": "script ended"})
                step(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def client(self, **options: Any) -> PersonaRefine:
        return PersonaRefine(self.url, SERVICE_KEY, **options)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "ScriptedServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
