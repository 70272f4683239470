"""Keys are checked before anything is sent. A key with a control character (a pasted newline)
is otherwise refused by http.client with an error that quotes the whole header, key included.
The messages here name the key, never its value."""
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .types import Fallback, Judge, JudgeSpec

_CONTROL = re.compile("[\u0000-\u001f\u007f-\u009f]")
_HEADER_SAFE = re.compile("[\u0021-\u007e]+")


def check_api_key(api_key: str) -> None:
    if not _HEADER_SAFE.fullmatch(api_key):
        what = "a control character (a pasted newline?)" if _CONTROL.search(api_key) else "a space or a non-ASCII character"
        raise ValueError(f"PersonaRefine: api_key contains {what}; it was not sent")


def check_provider_keys(
    provider_api_key: Optional[str], judge: Optional[JudgeSpec], fallbacks: Optional[Sequence[Fallback]]
) -> Tuple[str, ...]:
    """The provider keys of a call, checked; kept to scrub them from any message that quotes one."""
    named: List[Tuple[str, Optional[str]]] = [("provider_api_key", provider_api_key)]
    if isinstance(judge, Judge):
        named.append(("judge.provider_api_key", judge.provider_api_key))
    named.extend((f"fallbacks[{i}].provider_api_key", f.provider_api_key) for i, f in enumerate(fallbacks or ()))
    for name, key in named:
        if key is not None and _CONTROL.search(key):
            raise ValueError(f"PersonaRefine: {name} contains a control character (a pasted newline?); nothing was sent")
    return tuple(key for _, key in named if key)


def judge_body(judge: JudgeSpec) -> Any:
    if isinstance(judge, Judge):
        return _provider_body(judge.provider, judge.provider_api_key, judge.model)
    return True


def fallback_body(fallback: Fallback) -> Dict[str, str]:
    return _provider_body(fallback.provider, fallback.provider_api_key, fallback.model)


def _provider_body(provider: str, key: str, model: Optional[str]) -> Dict[str, str]:
    body = {"provider": provider, "providerApiKey": key}
    if model is not None:
        body["model"] = model
    return body
