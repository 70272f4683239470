/**
 * The API's persona shapes, shared by the client and the pure modules that work on them:
 * the OpenAPI document's schemas (through the SDK's generated types), so a field the service
 * adds or renames reaches the studio's type check.
 */
import type { components, paths } from '../../../sdk/src/generated/openapi.js';

type Schemas = components['schemas'];

/**
 * Attributes as the studio edits them: any key, any JSON value (the JSON view may hold what the
 * form cannot draw), wider than the documented well-known keys; stored and returned verbatim.
 */
export type Attributes = Record<string, unknown>;

type WithAttributes<T> = Omit<T, 'attributes'> & { attributes: Attributes };

export type Persona = WithAttributes<Schemas['Persona']>;

export type PersonaDraft = Omit<Persona, 'id'>;

/** One immutable version of a persona, as GET /v1/personas/{id}/versions lists it. */
export type PersonaVersion = WithAttributes<Schemas['PersonaVersion']>;

/** Label → version, e.g. { production: 3 }. */
export type PersonaLabels = paths['/v1/personas/{id}/labels/{label}']['put']['responses'][200]['content']['application/json'];

/** POST /v1/check: the text to lint against a persona, and optionally what it was rewritten from. */
export type CheckRequest = paths['/v1/check']['post']['requestBody']['content']['application/json'];

/**
 * The text's persona score and its parts, `passed`, and every rule still broken,
 * `{ rule, severity, message, start, end }`: offsets into `content`, for `preserve` into `original`.
 */
export type CheckVerdict = paths['/v1/check']['post']['responses'][200]['content']['application/json'];

export type RuleViolation = CheckVerdict['violations'][number];

/** An API key as listed: never its secret. */
export type ApiKey = Schemas['ApiKey'];
/** A key as created or rotated, with its secret (shown once). */
export type IssuedApiKey = Schemas['IssuedApiKey'];
export type CreateKeyInput = paths['/v1/keys']['post']['requestBody']['content']['application/json'];
export type CurrentKey = paths['/v1/keys/current']['get']['responses'][200]['content']['application/json'];
export type LabelPolicy = Schemas['LabelPolicy'];

export type EvalSample = Schemas['EvalSample'];
/** A sample as sent to PUT …/samples: with the id of one read earlier, or none for a new one. */
export type EvalSampleInput = paths['/v1/personas/{id}/samples']['put']['requestBody']['content']['application/json']['samples'][number];
export type StartEvalInput = paths['/v1/personas/{id}/evals']['post']['requestBody']['content']['application/json'];
export type EvalRun = Schemas['EvalRun'];
export type EvalRunWithResults = Schemas['EvalRunWithResults'];
export type EvalResult = Schemas['EvalResult'];
export type EvalComparison = paths['/v1/personas/{id}/evals/compare']['get']['responses'][200]['content']['application/json'];
export type LabelPolicyInput = paths['/v1/personas/{id}/labels/{label}/policy']['put']['requestBody']['content']['application/json'];

export type QualityQuery = NonNullable<paths['/v1/personas/{id}/quality']['get']['parameters']['query']>;
/** One row of GET /v1/personas/{id}/quality: a day's (or a version's) answers, scores, findings and feedback. */
export type QualityRow = paths['/v1/personas/{id}/quality']['get']['responses'][200]['content']['application/json']['rows'][number];

/** Which live answers a persona keeps for review, and for how long. */
export type RetentionPolicy = paths['/v1/personas/{id}/retention']['put']['requestBody']['content']['application/json'];
/** A kept answer in the review queue: the text asked, the answer, its score and findings, its feedback. */
export type Review = Schemas['Review'];
export type ResolveReviewInput = paths['/v1/personas/{id}/reviews/{requestId}/resolve']['post']['requestBody']['content']['application/json'];
