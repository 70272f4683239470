/**
 * The SDK's public data types, all derived from the generated OpenAPI types, so a server change
 * that alters a body changes (or breaks) these too.
 */
import type { components, paths } from './generated/openapi.js';

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

export type Persona = components['schemas']['Persona'];
/** The well-known keys typed as the service documents them; any other key is allowed too. */
export type PersonaAttributes = components['schemas']['PersonaAttributes'];
export type ErrorBody = components['schemas']['Error'];
export type CreatePersonaInput = JsonOf<paths['/v1/personas']['post']['requestBody']>;
/** A field present replaces the stored one; a field absent is kept; `attributes` is replaced whole. */
export type UpdatePersonaInput = JsonOf<paths['/v1/personas/{id}']['patch']['requestBody']>;
/** What `personas.draft` takes: 1–20 sample texts and the provider that drafts from them. */
export type DraftPersonaInput = JsonOf<paths['/v1/personas/draft']['post']['requestBody']>;
/** A persona drafted from samples, stored nowhere: `personas.create` takes it as it is. */
export type PersonaDraft = JsonOf<paths['/v1/personas/draft']['post']['responses'][200]>;
type VariantRoute = paths['/v1/personas/{id}/variants/{name}']['get'];
/** Which version `personas.variant` reads: the newest unless one is pinned (not both). */
export type PersonaVariantQuery = NonNullable<VariantRoute['parameters']['query']>;
/** One of a persona's variants merged over its attributes: what a request naming it reads. */
export type PersonaVariant = JsonOf<VariantRoute['responses'][200]>;
export type RefineInput = JsonOf<paths['/v1/refine']['post']['requestBody']>;
/** Which persona version a refine or check used (`X-Persona-Version`), and which variant (`X-Persona-Variant`); not enumerable. */
export interface UsedPersonaVersion {
  readonly personaVersion: number;
  /** The persona's variant the answer used, when the request named one. */
  readonly personaVariant: string | undefined;
}
export type RefineResult = JsonOf<paths['/v1/refine']['post']['responses'][200]> &
  UsedPersonaVersion & {
    /**
     * The persona's rules still broken after the service's fixes and its one repair call, from
     * `X-Persona-Violations` (e.g. `{ avoid: 1, maxWords: 1 }`); `{}` when none. Not enumerable,
     * so the result still serializes as `{ response }`.
     */
    readonly violations: Readonly<Record<string, number>>;
    /**
     * Provider calls and tokens, summed over every call the refine made (retries, fallbacks and the
     * repair call included), from `X-Usage`. A token member is absent when a provider did not report it.
     */
    readonly usage: Readonly<{ inputTokens?: number; outputTokens?: number; providerCalls: number }>;
    /** Who produced the answer, from `X-Provider`: a fallback's id when it answered; no model for `rules`. */
    readonly provider: Readonly<{ id: string; model?: string }>;
    /** With the `cache` option: whether a stored answer was returned (`X-Cache`) and how old it is (`Age`). */
    readonly cache: Readonly<{ hit: true; ageSeconds: number } | { hit: false }> | undefined;
    /**
     * How well the answer matches the persona, 0–100, from `X-Persona-Score`: the score `check`
     * gives it with the refined `content` as `original` (docs/voice-score.md); undefined from a
     * server too old to send it.
     */
    readonly score: number | undefined;
    /** With `judge`: the judge's rating (1–5) of each descriptive attribute, from `X-Persona-Ratings`; undefined when not judged. */
    readonly ratings: ReadonlyArray<Readonly<{ attribute: string; rating: number }>> | undefined;
    /** With `judge`: why the judge gave no ratings (`X-Persona-Judge-Error`); the refine itself succeeded. */
    readonly judgeError: string | undefined;
    /** With `judge`: why nothing was rated and no judge call made, the persona setting no descriptive attribute (`X-Persona-Judge-Warning`, decoded). */
    readonly judgeWarning: string | undefined;
    /** The answer's `X-Request-Id`: what `feedback.create` rates it by. */
    readonly requestId: string | undefined;
  };
/** A provider this instance can call, from GET /v1/providers. */
export type Provider = JsonOf<paths['/v1/providers']['get']['responses'][200]>[number];
/** One of `fallbacks` on a refine: another provider, with your own key for it. */
export type Fallback = NonNullable<RefineInput['fallbacks']>[number];
export type UsageQuery = NonNullable<paths['/v1/usage']['get']['parameters']['query']>;
export type UsageRow = JsonOf<paths['/v1/usage']['get']['responses'][200]>[number];
export type CheckInput = JsonOf<paths['/v1/check']['post']['requestBody']>;
export type CheckResult = JsonOf<paths['/v1/check']['post']['responses'][200]> & UsedPersonaVersion;
/**
 * A judge's verdict on a text, as a check's `judge` and a streamed refine's `done.judge` carry it:
 * `{ provider, model, ratings: [{ attribute, rating, reason }] }`, or `{ error }` when it failed.
 */
export type JudgeVerdict = NonNullable<components['schemas']['StreamDone']['judge']>;
/** One rule finding of a check, with where it is and its `severity`. */
export type CheckFinding = CheckResult['violations'][number];
/** `required` fails a check; `recommended` only lowers the score (set per rule by the persona's `enforce`). */
export type Severity = CheckFinding['severity'];
export type PersonaVersion = components['schemas']['PersonaVersion'];
/** Label → version, e.g. `{ production: 3 }`. */
export type PersonaLabels = JsonOf<paths['/v1/personas/{id}/labels']['get']['responses'][200]>;
export type AuditEvent = components['schemas']['AuditEvent'];
/** An API key as listed (never its secret). */
export type ApiKey = components['schemas']['ApiKey'];
/** An API key as created or rotated: with its `secret`, shown this once. */
export type IssuedApiKey = components['schemas']['IssuedApiKey'];
export type CreateKeyInput = JsonOf<paths['/v1/keys']['post']['requestBody']>;
/** A scope a key may have; `*` is every scope. */
export type Scope = ApiKey['scopes'][number];
export type CurrentKey = JsonOf<paths['/v1/keys/current']['get']['responses'][200]>;
export type LabelPolicy = components['schemas']['LabelPolicy'];
/** Label → its policy, e.g. `{ production: { label: 'production', protected: true, … } }`. */
export type LabelPolicies = JsonOf<paths['/v1/personas/{id}/label-policies']['get']['responses'][200]>;
export type LabelPolicyInput = JsonOf<paths['/v1/personas/{id}/labels/{label}/policy']['put']['requestBody']>;

/**
 * A persona as returned by `create`, `get` and `update`, carrying the ETag to pass as `ifMatch`.
 * `etag` is non-enumerable, so JSON.stringify, equality checks and `{ ...persona }` see exactly
 * the API's `{ id, name, attributes }` — read `etag` from the returned object itself.
 */
export type PersonaWithEtag = Persona & { readonly etag: string };

/** One evaluation sample, as stored: its `id` is kept while it is unchanged. */
export type EvalSample = components['schemas']['EvalSample'];
/** A sample as sent to `samples.replace`: with the `id` of one read earlier, or none for a new one. */
export type EvalSampleInput = JsonOf<paths['/v1/personas/{id}/samples']['put']['requestBody']>['samples'][number];
/** The persona's samples, carrying their own ETag (not the persona's) to pass as `ifMatch`; `etag` is not enumerable. */
export type EvalSampleSet = JsonOf<paths['/v1/personas/{id}/samples']['get']['responses'][200]> & { readonly etag: string };
export type StartEvalInput = JsonOf<paths['/v1/personas/{id}/evals']['post']['requestBody']>;
/** A run without its results, as started, listed and cancelled. */
export type EvalRun = components['schemas']['EvalRun'];
/** A run with `results`, in the order of the samples. */
export type EvalRunWithResults = components['schemas']['EvalRunWithResults'];
export type EvalResult = components['schemas']['EvalResult'];
export type EvalSummary = EvalRun['summary'];
/** Two runs sample by sample, and the samples that regressed from `base` to `head`. */
export type EvalComparison = JsonOf<paths['/v1/personas/{id}/evals/compare']['get']['responses'][200]>;
/**
 * What a run's event stream says, in order: what happened so far, then as it happens; the last
 * event is `done` (completed) or `error` (failed, cancelled or interrupted: the run's outcome,
 * not a failure of the call).
 */
export type EvalEvent =
  | { event: 'result'; data: EvalResult }
  | { event: 'progress'; data: components['schemas']['EvalProgressEvent'] }
  | { event: 'done'; data: components['schemas']['EvalDoneEvent'] }
  | { event: 'error'; data: components['schemas']['EvalErrorEvent'] };

export type QualityQuery = NonNullable<paths['/v1/personas/{id}/quality']['get']['parameters']['query']>;
/**
 * A day's (or a version's) answers with the persona on live traffic: their count, mean score,
 * those under `minScore` or with a required finding left, findings by rule, and the feedback on them.
 */
export type QualityRow = JsonOf<paths['/v1/personas/{id}/quality']['get']['responses'][200]>['rows'][number];
export type Feedback = components['schemas']['Feedback'];
export type FeedbackInput = JsonOf<paths['/v1/feedback']['post']['requestBody']>;
/** `up` or `down`. */
export type FeedbackRating = Feedback['rating'];
/** Which answers a persona keeps for review (`none`, `belowMinScore`, `flagged`, `all`) and for how many days. */
export type RetentionPolicy = JsonOf<paths['/v1/personas/{id}/retention']['get']['responses'][200]>;
/** A kept answer: the caller's text, the answer, its score and findings, the feedback on it, and whether it is resolved. */
export type Review = components['schemas']['Review'];
/** `open` (in the queue) or `resolved`. */
export type ReviewStatus = Review['status'];
export type ResolveReviewInput = JsonOf<paths['/v1/personas/{id}/reviews/{requestId}/resolve']['post']['requestBody']>;

/** A webhook endpoint as listed and read: never its secret. */
export type Webhook = components['schemas']['Webhook'];
/** An endpoint as created or given a new secret: with its `secret` (`whsec_…`), shown this once. */
export type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
export type CreateWebhookInput = JsonOf<paths['/v1/webhooks']['post']['requestBody']>;
/** Any of `url`, `events`, `description` (null clears it) and `disabled`; at least one. */
export type UpdateWebhookInput = JsonOf<paths['/v1/webhooks/{id}']['patch']['requestBody']>;
/** An event type an endpoint may subscribe to, or `*` for every type (those added later included). */
export type WebhookSubscription = Webhook['events'][number];
export type WebhookEventType = Exclude<WebhookSubscription, '*'>;
/** One event sent to one endpoint: its status, attempts and the last attempt's outcome. */
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
/** `pending` (an attempt is due), `delivered` (a 2xx came back) or `failed` (retries exhausted, or the endpoint disabled). */
export type WebhookDeliveryStatus = WebhookDelivery['status'];
