"""What the calls take and return. Field names are Python's spelling of the API's
(``persona_version`` for ``personaVersion``); persona ``attributes`` are kept as the API spells them."""
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union


@dataclass(frozen=True)
class Persona:
    id: str
    name: str
    attributes: Dict[str, Any]
    #: The ETag of this state (``ETag`` header), to pass as ``if_match``; "" where the answer had none (lists).
    etag: str = ""


@dataclass(frozen=True)
class PersonaVersion:
    version: int
    name: str
    attributes: Dict[str, Any]
    created_at: str
    #: Id of the API key that made it (never the key); None for versions older than history.
    created_by: Optional[str]


@dataclass(frozen=True)
class PersonaVariant:
    """One of a persona's variants merged over the version's attributes: what a call naming it reads."""

    id: str
    name: str
    version: int
    variant: str
    attributes: Dict[str, Any]


@dataclass(frozen=True)
class DraftWarning:
    """What of the model's answer a draft dropped, and why."""

    message: str
    #: The attribute it is about, when it is about one.
    attribute: Optional[str] = None


@dataclass(frozen=True)
class PersonaDraft:
    """A persona drafted from samples, stored nowhere: ``personas.create(draft.name, draft.attributes)`` keeps it."""

    name: str
    attributes: Dict[str, Any]
    #: Per drafted attribute, a quote from a sample that shows it.
    evidence: Dict[str, str]
    #: What of the model's answer was dropped; ``[]`` when nothing was.
    warnings: List[DraftWarning]


@dataclass(frozen=True)
class TokenUsage:
    """Provider calls and tokens of a refine, over every call it made; a token count is None
    when a provider did not report it."""

    provider_calls: int = 0
    input_tokens: Optional[int] = None
    output_tokens: Optional[int] = None


@dataclass(frozen=True)
class Fallback:
    """Another provider a refine tries, in order, when the previous one fails in a way that may pass."""

    provider: str
    provider_api_key: str = field(repr=False)
    model: Optional[str] = None


@dataclass(frozen=True)
class Judge:
    """Who rates the text's voice: a provider with the caller's key for it."""

    provider: str
    provider_api_key: str = field(repr=False)
    model: Optional[str] = None


@dataclass(frozen=True)
class RefineResult:
    response: str
    #: Rules still broken, by rule id (``{"avoid": 1}``); ``{}`` when none.
    violations: Dict[str, int]
    #: 0–100, how well ``response`` matches the persona; None from a server too old to send it.
    score: Optional[int]
    #: The persona version used: the pinned one, else the newest.
    persona_version: int
    usage: TokenUsage
    request_id: Optional[str]
    #: Who answered (a fallback, if it did): ``"openai"``, ``"rules"``…
    provider: Optional[str] = None
    model: Optional[str] = None
    #: With ``judge``: attribute → rating 1–5, in the persona's order; ``{}`` when nothing was rated; None when not judged.
    ratings: Optional[Dict[str, int]] = None
    #: With ``judge``: why the judge gave no ratings (the refine itself succeeded).
    judge_error: Optional[str] = None
    #: With ``judge``: why nothing was rated (the persona sets no descriptive attribute).
    judge_warning: Optional[str] = None
    #: Streams only: the pieces shown were not a prefix of ``response`` (a service bug); use ``response``.
    replaced: bool = False
    #: The persona's variant used (``X-Persona-Variant``), when the call named one.
    persona_variant: Optional[str] = None


@dataclass(frozen=True)
class RefineDelta:
    """The next piece of a streamed refine's text."""

    text: str


@dataclass(frozen=True)
class CheckViolation:
    rule: str
    #: ``required`` fails a check; ``recommended`` only lowers the score.
    severity: str
    message: str
    #: Offsets in ``content`` (for ``preserve``, in ``original``), end exclusive.
    start: int
    end: int


@dataclass(frozen=True)
class CheckWarning:
    attribute: str
    message: str


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    score: int
    #: ``rules``, ``facts``, and ``voice`` when judged.
    scores: Dict[str, int]
    violations: List[CheckViolation]
    warnings: List[CheckWarning]
    persona_version: int
    request_id: Optional[str]
    #: With ``judge``: ``{"provider", "model", "ratings"}`` or ``{"error"}``.
    judge: Optional[Dict[str, Any]] = None
    #: The persona's variant used (``X-Persona-Variant``), when the call named one.
    persona_variant: Optional[str] = None


@dataclass(frozen=True)
class EvalRun:
    id: str
    persona_id: str
    version: int
    #: ``queued``, ``running``, ``completed``, ``failed``, ``cancelled`` or ``interrupted``.
    status: str
    created_at: str
    finished_at: Optional[str]
    provider: str
    model: Optional[str]
    concurrency: int
    #: ``{"done": n, "total": m}``
    progress: Dict[str, int]
    #: ``score``, ``passRate``, ``minScore``, ``errored``, ``violations``, ``failedExpectations``, ``usage``.
    summary: Dict[str, Any]
    error: Optional[str]
    judge: Optional[Dict[str, Any]] = None
    #: From ``get`` and ``wait``: one result per sample, in sample order, as the API sends them.
    results: Optional[List[Dict[str, Any]]] = None
    #: The persona variant evaluated, when the run named one.
    variant: Optional[str] = None

    @property
    def finished(self) -> bool:
        return self.status not in ("queued", "running")


@dataclass(frozen=True)
class KeyLimits:
    #: None: no budget / no limit.
    tokens_per_day: Optional[int] = None
    refines_per_minute: Optional[int] = None


@dataclass(frozen=True)
class ApiKey:
    """An API key as listed: never its secret."""

    id: str
    name: str
    scopes: List[str]
    #: The first characters of the secret, to recognise it.
    prefix: str
    created_at: str
    expires_at: Optional[str]
    limits: KeyLimits
    previous_secret_expires_at: Optional[str]


@dataclass(frozen=True)
class IssuedApiKey(ApiKey):
    """A key as created or rotated, with its ``secret``: in this answer only, kept out of ``repr``."""

    secret: str = field(repr=False)


@dataclass(frozen=True)
class UsageRow:
    day: str
    provider: str
    model: Optional[str]
    #: ``refine`` or ``chat``.
    endpoint: str
    refines: int
    failures: int
    cache_hits: int
    provider_calls: int
    input_tokens: int
    output_tokens: int
    #: With ``group_by="key"`` only.
    key_id: Optional[str] = None


@dataclass(frozen=True)
class FeedbackCounts:
    up: int
    down: int


@dataclass(frozen=True)
class TokenCounts:
    """Tokens the providers reported for a quality row's answers, every call of each (fallbacks,
    the repair, the judge); the ``rules`` provider and cache hits cost none."""

    input: int
    output: int


@dataclass(frozen=True)
class QualityRow:
    """A UTC day's (or, by version, the range's) answers of one persona on live traffic: refines,
    chat completions and checks, cache hits and the ``rules`` provider included."""

    answers: int
    #: The answers' mean persona score, two decimals; None when the row has feedback but no answers.
    mean_score: Optional[float]
    #: Answers scored under the version's ``minScore``.
    below_min_score: int
    #: Answers with a finding of a required rule left.
    with_required_findings: int
    #: Findings left in the answers, by rule (``{"avoid": 2}``).
    findings: Dict[str, int]
    #: Ratings given to these answers.
    feedback: FeedbackCounts
    #: Tokens these answers cost.
    tokens: TokenCounts
    #: By day (the default): ``YYYY-MM-DD``.
    day: Optional[str] = None
    #: With ``group_by="version"``: the persona version that answered.
    version: Optional[int] = None


@dataclass(frozen=True)
class Feedback:
    """A rating of one answer, named by the request id of its refine or chat completion."""

    id: str
    request_id: str
    persona_id: str
    #: The persona version that answered.
    version: int
    #: ``up`` or ``down``.
    rating: str
    created_at: str
    #: The answer as it should have been.
    corrected_text: Optional[str] = None
    comment: Optional[str] = None


@dataclass(frozen=True)
class RetentionPolicy:
    """Which answers a persona keeps for review: ``none`` (the default), ``belowMinScore``,
    ``flagged`` (those, and any rated down within a day) or ``all``; kept ``days`` (1–90)."""

    keep: str
    days: int


@dataclass(frozen=True)
class Review:
    """An answer the persona's retention policy kept, with the caller's text."""

    request_id: str
    #: When it was answered.
    created_at: str
    version: int
    #: ``refine`` or ``chat``.
    endpoint: str
    #: The caller's text: a refine's ``content``, a chat completion's last user message.
    content: str
    response: str
    score: int
    violations: List[CheckViolation]
    #: ``open`` or ``resolved``.
    status: str
    #: The feedback on the answer as the API sends it (``{"rating", "correctedText"?, "comment"?}``), if any.
    feedback: Optional[Dict[str, Any]] = None
    #: The evaluation sample its resolve added, if it did.
    sample_id: Optional[str] = None


@dataclass(frozen=True)
class Webhook:
    """An endpoint the service POSTs signed events to; never its secret."""

    #: ``wh_…``
    id: str
    url: str
    #: Event types (``label.moved``…), or ``"*"`` for every type, later ones too.
    events: List[str]
    description: Optional[str]
    created_at: str
    #: True after five days of nothing but failed deliveries (or when set): nothing is sent until it is False again.
    disabled: bool


@dataclass(frozen=True)
class WebhookWithSecret(Webhook):
    """An endpoint as created or rotated, with its ``secret`` (``whsec_…``): in this answer only,
    kept out of ``repr``."""

    secret: str = field(repr=False)


@dataclass(frozen=True)
class WebhookDelivery:
    """One event sent to one endpoint, and what became of it."""

    #: ``whd_…``
    id: str
    #: The event's id (``msg_…``): the ``webhook-id`` header, the same on every attempt.
    event_id: str
    type: str
    #: ``pending``, ``delivered`` or ``failed``.
    status: str
    attempts: int
    #: The last attempt's HTTP status; None before one, or when it got no answer.
    last_status_code: Optional[int]
    #: Why the last attempt failed; None after a success.
    last_error: Optional[str]
    #: When the next attempt is due; None once delivered or failed.
    next_attempt_at: Optional[str]
    created_at: str


@dataclass(frozen=True)
class WebhookEvent:
    """A delivery that ``verify_webhook`` verified."""

    #: The ``webhook-id`` header (``msg_…``): the same on every attempt, so a repeat can be skipped.
    id: str
    type: str
    #: When the event happened, ISO 8601.
    timestamp: str
    #: What the type carries (docs/webhooks.md on the server lists each), as the API spells it.
    data: Dict[str, Any]


JudgeSpec = Union[bool, Judge]
