"""Evaluation runs, /v1/personas/{id}/evals: every sample of a persona refined with one version,
scored and checked against what it expects."""
import http.client
import json
import urllib.parse
from typing import Any, Dict, Iterator, Optional, Tuple

from . import _parse
from ._answer import request_id_of
from ._errors import ApiError, APIConnectionError
from ._keys import check_provider_keys, judge_body
from ._sse import DEFAULT_MAX_EVENT_BYTES, EventStreamParser
from ._transport import NETWORK_ERRORS, Deadline, Transport
from .personas import persona_path
from .types import EvalRun, JudgeSpec

_EVENTS = ("result", "progress", "done", "error")


def _eval_path(persona_id: str, eval_id: str) -> str:
    return f"{persona_path(persona_id)}/evals/{urllib.parse.quote(eval_id, safe='')}"


class Evals:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def start(
        self,
        persona_id: str,
        provider: str,
        provider_api_key: Optional[str] = None,
        *,
        model: Optional[str] = None,
        version: Optional[int] = None,
        label: Optional[str] = None,
        judge: Optional[JudgeSpec] = None,
        concurrency: Optional[int] = None,
        variant: Optional[str] = None,
    ) -> EvalRun:
        """Starts a run and returns it queued; with ``variant``, of that persona variant (a sample
        naming its own uses that one). Never retried: the service does not replay this
        POST, so a retry after a lost answer would start a second run."""
        secrets = check_provider_keys(provider_api_key, judge, None)
        body: Dict[str, Any] = {"provider": provider}
        for name, value in (("providerApiKey", provider_api_key), ("model", model), ("version", version), ("label", label), ("concurrency", concurrency), ("variant", variant)):
            if value is not None:
                body[name] = value
        if judge is not None and judge is not False:
            body["judge"] = judge_body(judge)
        return self._transport.call_as(
            lambda b, _: _parse.eval_run(b), "POST", f"{persona_path(persona_id)}/evals", body=body, max_retries=0, secrets=secrets
        )

    def get(self, persona_id: str, eval_id: str) -> EvalRun:
        """The run with its ``results``, in sample order."""
        return self._transport.call_as(lambda b, _: _parse.eval_run(b), "GET", _eval_path(persona_id, eval_id))

    def cancel(self, persona_id: str, eval_id: str) -> EvalRun:
        """Stops the run; a run already ended is a ConflictError. Not retried, like ``start``."""
        return self._transport.call_as(lambda b, _: _parse.eval_run(b), "POST", f"{_eval_path(persona_id, eval_id)}/cancel", max_retries=0)

    def events(self, persona_id: str, eval_id: str, timeout: Optional[float] = None) -> Iterator[Tuple[str, Dict[str, Any]]]:
        """The run's events, ``(name, data)``: what happened so far, then as it happens, until the
        last, ``done`` or ``error`` (the run's outcome, not a failure of the call). The client's
        ``timeout`` (or this call's ``timeout``) bounds the whole stream; leaving the loop closes it."""
        response, deadline = self._transport.open(
            "GET", f"{_eval_path(persona_id, eval_id)}/events", body=None, headers={"Accept": "text/event-stream"}, first=_event_stream,
            timeout=timeout,
        )
        request_id = request_id_of(response.headers)
        parser = EventStreamParser(min(self._transport.max_answer_bytes, DEFAULT_MAX_EVENT_BYTES))
        with response:
            while True:
                deadline.check()
                try:
                    chunk = response.read1(64 * 1024)
                except NETWORK_ERRORS as cause:
                    if deadline.remaining() <= 0:
                        raise deadline.error() from None
                    raise APIConnectionError(f"the event stream from persona-refine was cut: {cause}", request_id) from None
                for event in parser.push(chunk) if chunk else parser.end():
                    if event.event not in _EVENTS:
                        continue
                    try:
                        data = json.loads(event.data)
                    except ValueError:
                        data = None
                    if not isinstance(data, dict):
                        raise ApiError(200, f"the run's {event.event} event is not a JSON object", request_id)
                    yield event.event, data
                    if event.event in ("done", "error"):
                        return
                if not chunk:
                    raise APIConnectionError("the event stream from persona-refine was cut: it ended before the run did", request_id)

    def wait(self, persona_id: str, eval_id: str, timeout: Optional[float] = None) -> EvalRun:
        """Follows the run's events until it has ended, then returns it with its results.
        ``timeout`` (default: the client's) bounds the wait: pass more for a long run."""
        run = self.get(persona_id, eval_id)
        if run.finished:
            return run
        for name, _ in self.events(persona_id, eval_id, timeout=timeout):
            if name in ("done", "error"):
                break
        return self.get(persona_id, eval_id)


def _event_stream(response: http.client.HTTPResponse, deadline: Deadline) -> http.client.HTTPResponse:
    if not (response.headers.get("content-type") or "").startswith("text/event-stream"):
        raise ApiError(response.status, f"HTTP {response.status} answer is not an event stream", request_id_of(response.headers))
    return response
