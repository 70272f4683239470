"""The persona resource, /v1/personas, with its versions, labels and evaluation samples."""
import urllib.parse
from typing import Any, Dict, List, Optional, Sequence

from . import _parse
from ._keys import check_provider_keys
from ._pages import all_pages
from ._transport import Transport
from .types import Persona, PersonaDraft, PersonaVariant, PersonaVersion


def persona_path(persona_id: str) -> str:
    return f"/personas/{urllib.parse.quote(persona_id, safe='')}"


def _if_match(etag: Optional[str]) -> Optional[Dict[str, str]]:
    return None if etag is None else {"If-Match": etag}


class PersonaVersions:
    """Immutable versions: every create, update and restore made one."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self, persona_id: str, *, page_size: int = 100) -> List[PersonaVersion]:
        """Every version, oldest first (read ``page_size`` at a time)."""
        return all_pages(self._transport, f"{persona_path(persona_id)}/versions?limit={page_size}", _parse.persona_version)

    def get(self, persona_id: str, version: int) -> PersonaVersion:
        return self._transport.call_as(lambda body, _: _parse.persona_version(body), "GET", f"{persona_path(persona_id)}/versions/{int(version)}")

    def restore(self, persona_id: str, version: int, if_match: Optional[str] = None) -> Persona:
        """That version's content becomes the newest version (a new number); returns the persona."""
        path = f"{persona_path(persona_id)}/versions/{int(version)}/restore"
        return self._transport.call_as(_parse.persona, "POST", path, headers=_if_match(if_match))


class PersonaLabels:
    """Movable labels (``production`` → 3); ``latest`` is implicit."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def _path(self, persona_id: str, label: str) -> str:
        return f"{persona_path(persona_id)}/labels/{urllib.parse.quote(label, safe='')}"

    def get(self, persona_id: str) -> Dict[str, int]:
        """``{"production": 3, "staging": 5}``"""
        return self._transport.call_as(lambda body, _: _parse.labels(body), "GET", f"{persona_path(persona_id)}/labels")

    def set(self, persona_id: str, label: str, version: int, if_match: Optional[str] = None) -> Dict[str, int]:
        """Points ``label`` at ``version`` (creating or moving it); returns every label."""
        return self._transport.call_as(
            lambda body, _: _parse.labels(body), "PUT", self._path(persona_id, label), body={"version": version}, headers=_if_match(if_match)
        )

    def delete(self, persona_id: str, label: str, if_match: Optional[str] = None) -> None:
        self._transport.call("DELETE", self._path(persona_id, label), headers=_if_match(if_match), expect="none")


class PersonaSamples:
    """The persona's evaluation samples (``[{"name", "content", "expect"}]``), which ``evals`` run."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def get(self, persona_id: str) -> List[Dict[str, Any]]:
        answer = self._transport.call("GET", f"{persona_path(persona_id)}/samples")
        return _parse.shaped(answer.status, answer.headers, lambda body: _parse.field_of(body, "samples", (list,)), answer.body)

    def replace(self, persona_id: str, samples: List[Dict[str, Any]], if_match: Optional[str] = None) -> List[Dict[str, Any]]:
        """Replaces the whole set (at most 200); an unchanged sample keeps its id."""
        answer = self._transport.call("PUT", f"{persona_path(persona_id)}/samples", body={"samples": samples}, headers=_if_match(if_match))
        return _parse.shaped(answer.status, answer.headers, lambda body: _parse.field_of(body, "samples", (list,)), answer.body)


class Personas:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self.versions = PersonaVersions(transport)
        self.labels = PersonaLabels(transport)
        self.samples = PersonaSamples(transport)

    def create(self, name: str, attributes: Optional[Dict[str, Any]] = None) -> Persona:
        body: Dict[str, Any] = {"name": name, **({} if attributes is None else {"attributes": attributes})}
        return self._transport.call_as(_parse.persona, "POST", "/personas", body=body)

    def get(self, persona_id: str) -> Persona:
        return self._transport.call_as(_parse.persona, "GET", persona_path(persona_id))

    def variant(self, persona_id: str, name: str, persona_version: Optional[int] = None, persona_label: Optional[str] = None) -> PersonaVariant:
        """The variant ``name`` merged over the persona's attributes: what a call naming it reads. The
        newest version's unless ``persona_version`` or ``persona_label`` pins one (not both)."""
        query = {k: str(v) for k, v in (("personaVersion", persona_version), ("personaLabel", persona_label)) if v is not None}
        path = f"{persona_path(persona_id)}/variants/{urllib.parse.quote(name, safe='')}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        return self._transport.call_as(lambda body, _: _parse.persona_variant(body), "GET", path)

    def draft(
        self, samples: Sequence[str], provider: str, provider_api_key: str, model: Optional[str] = None, name: Optional[str] = None
    ) -> PersonaDraft:
        """A persona drafted by ``provider`` from 1–20 sample texts, stored nowhere: its attributes, a
        quote from a sample per attribute as ``evidence``, and ``warnings`` for what of the model's
        answer was dropped. Spends the key's budgets as a refine does."""
        secrets = check_provider_keys(provider_api_key, None, None)
        body: Dict[str, Any] = {"samples": list(samples), "provider": provider, "providerApiKey": provider_api_key}
        for wire, value in (("model", model), ("name", name)):
            if value is not None:
                body[wire] = value
        return self._transport.call_as(lambda b, _: _parse.persona_draft(b), "POST", "/personas/draft", body=body, secrets=secrets)

    def list(self, *, page_size: int = 100) -> List[Persona]:
        """Every persona of the account, oldest first, read ``page_size`` at a time (each without ``etag``)."""
        return all_pages(self._transport, f"/personas?limit={page_size}", _parse.persona)

    def update(
        self, persona_id: str, name: Optional[str] = None, attributes: Optional[Dict[str, Any]] = None, if_match: Optional[str] = None
    ) -> Persona:
        """A field given replaces the stored one (``attributes`` whole); one left None is kept. With
        ``if_match`` (a ``persona.etag``), a concurrent change raises PreconditionFailedError."""
        body: Dict[str, Any] = {}
        if name is not None:
            body["name"] = name
        if attributes is not None:
            body["attributes"] = attributes
        return self._transport.call_as(_parse.persona, "PATCH", persona_path(persona_id), body=body, headers=_if_match(if_match))

    def delete(self, persona_id: str, if_match: Optional[str] = None) -> None:
        self._transport.call("DELETE", persona_path(persona_id), headers=_if_match(if_match), expect="none")
