/** Table types: the single description of what the database holds. */
import type { ColumnType, Generated } from 'kysely';

/** PostgreSQL returns bigint as text; SQLite as a number. The repository turns both into numbers. */
type Counter = ColumnType<number | string, number, number>;

export interface AccountsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, enough to recognise it in `keys list`. */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** Given at creation; '' for keys made before keys had names. */
  name: ColumnType<string, string | undefined, string>;
  /** JSON array of scope names (`["*"]` for every scope). */
  scopes: ColumnType<string, string | undefined, string>;
  expires_at: ColumnType<string | null, string | null | undefined, string | null>;
  tokens_per_day: ColumnType<number | string | null, number | null | undefined, number | null>;
  refines_per_minute: ColumnType<number | null, number | null | undefined, number | null>;
  /** After a rotation: the old secret's hash, accepted until `previous_expires_at`. */
  previous_key_hash: ColumnType<string | null, string | null | undefined, string | null>;
  previous_expires_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the key's expiry was written to the audit trail (once). */
  expiry_recorded_at: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * JSON `[{"id", "tokensPerDay", "refinesPerMinute"}]`: the keys above this one (its creator,
   * that key's creator, …) that have a limit, nearest first; their limits bound this key's
   * spending too. Null when none has.
   */
  limited_by: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PersonasTable {
  id: string;
  account_id: string;
  name: string;
  /** JSON text exactly as serialized at write time, so key order and unicode round-trip. */
  attributes: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** One immutable row per persona version; only deleting the persona removes them. */
export interface PersonaVersionsTable {
  persona_id: string;
  version: number;
  account_id: string;
  name: string;
  attributes: string;
  created_at: string;
  /** Id of the API key that made the version; null for versions recorded before keys were tracked. */
  created_by: string | null;
}

/** A movable pointer at one version (`production` → 3). */
export interface PersonaLabelsTable {
  persona_id: string;
  label: string;
  version: number;
  updated_at: string;
}

export type AuditAction =
  | 'persona.created'
  | 'persona.updated'
  | 'persona.restored'
  | 'persona.deleted'
  | 'label.set'
  | 'label.removed'
  | 'label.policy.set'
  | 'label.policy.removed'
  | 'key.created'
  | 'key.revoked'
  | 'key.rotated'
  | 'key.expired'
  | 'budget.exceeded';

/** One row per change, written in the change's own transaction; kept when the persona goes. */
export interface AuditEventsTable {
  /** UUIDv7: orders events in time. */
  id: string;
  account_id: string;
  action: AuditAction;
  /** '' for events that are not about a persona (key and budget events). */
  persona_id: string;
  version: number | null;
  /** The version a restore copied, or the version a label pointed at before it moved. */
  from_version: number | null;
  label: string | null;
  actor: string | null;
  request_id: string | null;
  created_at: string;
  /** The key a key or budget event is about. */
  key_id: string | null;
  /** budget.exceeded: the limit (`tokensPerDay`, `refinesPerMinute`); key.rotated: the grace in seconds. */
  detail: string | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  /** Which operation the key was used for (`POST /v1/personas`…): a key is scoped to one. */
  operation: string;
  request_hash: string;
  /** Null while the first request is still running. */
  status: number | null;
  response_headers: string | null;
  response_body: string | null;
  /** A scope beyond the route's that the stored answer depended on (`labels:protected`): a replay needs it. */
  required_scope: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  expires_at: string;
}

export interface UsageDailyTable {
  account_id: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  provider: string;
  /** The resolved model; empty for the offline `rules` provider. */
  model: string;
  /** What was asked: `refine` (POST /v1/refine, checks, evaluations) or `chat` (POST /v1/chat/completions). */
  endpoint: Generated<string>;
  refines: Counter;
  failures: Counter;
  cache_hits: Counter;
  provider_calls: Counter;
  input_tokens: Counter;
  output_tokens: Counter;
}

/** usage_daily split by the API key that refined ('' for counts from before keys were tracked). */
export interface UsageDailyKeysTable extends UsageDailyTable {
  key_id: string;
}

/** Per persona × label: whether moving it needs `labels:protected`, and evaluation thresholds a move must meet. */
export interface LabelPoliciesTable {
  persona_id: string;
  label: string;
  /** 1 or 0 (SQLite has no boolean). */
  protected: number;
  min_score: number | null;
  min_pass_rate: number | null;
  max_age_days: number | null;
  updated_at: string;
}

/** A persona's evaluation samples: the whole set as JSON text, replaced whole (docs/evaluations.md, "Samples"). */
export interface EvalSampleSetsTable {
  persona_id: string;
  account_id: string;
  /** The set's ETag; bumped by every PUT. */
  version: number;
  /** JSON array of `{ id, name?, content, expect? }`. */
  samples: string;
  updated_at: string;
}

/** One evaluation run; never a provider or judge key (docs/evaluations.md, "Keys"). */
export interface EvalRunsTable {
  id: string;
  account_id: string;
  persona_id: string;
  version: number;
  /** The persona variant evaluated (the run's `variant`), or null for none. */
  variant: string | null;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';
  provider: string;
  model: string | null;
  /** JSON `{ provider, model }` of the judge, or null when not judged. */
  judge: string | null;
  concurrency: number;
  total: number;
  done: number;
  /** JSON of the summary over the results so far. */
  summary: string;
  /** Why a failed run failed. */
  error: string | null;
  created_at: string;
  finished_at: string | null;
  /** Id of the API key that started it. */
  created_by: string;
  /** The instance executing it, and when it last said so (docs/evaluations.md, "Restarts and many instances"). */
  owner: string | null;
  heartbeat_at: string | null;
}

/** One sample's result in a run; `seq` is the order results finished in. */
export interface EvalResultsTable {
  eval_id: string;
  seq: number;
  sample_id: string;
  /** The sample's place in the set, for answering results in sample order. */
  position: number;
  /** JSON of the result as answered. */
  result: string;
}

/**
 * Quality on live traffic (docs/quality.md): one row per account × persona × version × endpoint ×
 * UTC day, added to by upserts like usage_daily. Numbers only, never a text.
 */
export interface QualityDailyTable {
  account_id: string;
  persona_id: string;
  version: number;
  /** `refine`, `chat` or `check`. */
  endpoint: string;
  /** UTC day the answers were given, YYYY-MM-DD; feedback counts on its answer's day. */
  day: string;
  answers: Counter;
  /** The answers' scores summed; the mean is score_sum / answers. */
  score_sum: Counter;
  below_min_score: Counter;
  with_required_findings: Counter;
  feedback_up: Counter;
  feedback_down: Counter;
  /** What the answers' provider calls reported (0 for the rules provider and cache hits). */
  input_tokens: Counter;
  output_tokens: Counter;
}

/** The findings of quality_daily's answers, one row per rule. */
export interface QualityFindingsDailyTable {
  account_id: string;
  persona_id: string;
  version: number;
  endpoint: string;
  day: string;
  rule: string;
  findings: Counter;
}

/**
 * Which persona version answered a request, kept 30 days so feedback can name the request by
 * its X-Request-Id. Identifiers and a time only: never the request's or the answer's text.
 */
export interface AnswerLogTable {
  account_id: string;
  request_id: string;
  key_id: string;
  persona_id: string;
  version: number;
  endpoint: string;
  /** ISO 8601, UTC. */
  answered_at: string;
}

/** One feedback per answered request: a second replaces the first. */
export interface FeedbackTable {
  id: string;
  account_id: string;
  request_id: string;
  persona_id: string;
  version: number;
  endpoint: string;
  /** The answer's UTC day: the quality_daily row its rating counts in. */
  answer_day: string;
  rating: 'up' | 'down';
  corrected_text: string | null;
  comment: string | null;
  /** Id of the API key that gave it. */
  created_by: string;
  created_at: string;
}

/** A persona's retention policy for the review queue; a persona without a row keeps nothing. */
export interface ReviewPoliciesTable {
  account_id: string;
  persona_id: string;
  keep: 'none' | 'belowMinScore' | 'flagged' | 'all';
  days: number;
  updated_at: string;
}

/**
 * An answer kept for review, with the caller's text and the answer (never a provider key).
 * `waiting`: kept under `flagged` for at most 24 h in case feedback `down` flags it.
 */
export interface ReviewsTable {
  /** Time-ordered: the paging cursor. */
  id: string;
  account_id: string;
  persona_id: string;
  request_id: string;
  version: number;
  endpoint: string;
  created_at: string;
  content: string;
  response: string;
  score: number;
  /** JSON of the findings left in the answer. */
  violations: string;
  status: 'waiting' | 'open' | 'resolved';
  /** The sample a resolve added from this review. */
  sample_id: string | null;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: Generated<string>;
}

/** A webhook endpoint (docs/webhooks.md); its secrets are sealed, never stored as they are. */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of the subscribed event types (`*` for all). */
  events: string;
  description: string | null;
  created_at: string;
  /** 0 or 1. */
  disabled: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
}

/** The outbox: an event, written in the transaction of the change that caused it. */
export interface WebhookEventsTable {
  id: string;
  account_id: string;
  type: string;
  body: string;
  created_at: string;
  once_key: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  account_id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  /** While an instance is sending it: until when the others leave it alone. */
  lease_until: string | null;
  lease_owner: string | null;
  created_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  personas: PersonasTable;
  idempotency_keys: IdempotencyKeysTable;
  usage_daily: UsageDailyTable;
  service_secrets: ServiceSecretsTable;
  persona_versions: PersonaVersionsTable;
  persona_labels: PersonaLabelsTable;
  audit_events: AuditEventsTable;
  usage_daily_keys: UsageDailyKeysTable;
  label_policies: LabelPoliciesTable;
  eval_sample_sets: EvalSampleSetsTable;
  eval_runs: EvalRunsTable;
  eval_results: EvalResultsTable;
  quality_daily: QualityDailyTable;
  quality_findings_daily: QualityFindingsDailyTable;
  answer_log: AnswerLogTable;
  feedback: FeedbackTable;
  review_policies: ReviewPoliciesTable;
  reviews: ReviewsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
