/** Evaluation samples and runs over HTTP (docs/evaluations.md). */
import { Type, type Static } from '@sinclair/typebox';
import type { EvalComparison, EvalRun as DomainEvalRun, EvalRunWithResults } from '../evals/evaluation.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, type StartEval } from '../evals/evaluations.js';
import {
  EXPECT_TERM_MAX_LENGTH,
  EXPECT_TERMS_MAX,
  SAMPLE_CONTENT_MAX_LENGTH,
  SAMPLE_NAME_MAX_LENGTH,
  type Sample as DomainSample,
  type SampleInput,
  SAMPLES_MAX,
} from '../evals/samples.js';
import { VARIANT_NAME_PATTERN } from '../personas/catalogue/index.js';
import { LABEL_MAX_LENGTH } from '../personas/labels.js';
import { RULE_IDS, SEVERITIES } from '../rules/types.js';
import type { Assignable } from './common.js';
import { VERSION_MAX } from './persona-history.js';
import { MODEL_PATTERN, PROVIDER_KEY_MAX_LENGTH, PROVIDER_KEY_PATTERN } from './refine.js';

const Terms = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: EXPECT_TERM_MAX_LENGTH }), { maxItems: EXPECT_TERMS_MAX, description }));

export const Expectation = Type.Object(
  {
    contains: Terms('Each must occur in the answer, exactly as written'),
    notContains: Terms('None may occur in the answer, exactly as written'),
  },
  { additionalProperties: false, description: 'What a passing answer must and must not contain' },
);

const sampleFields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: SAMPLE_NAME_MAX_LENGTH, description: 'A label for people' })),
  content: Type.String({ minLength: 1, maxLength: SAMPLE_CONTENT_MAX_LENGTH, description: 'The text to refine' }),
  expect: Type.Optional(Expectation),
  variant: Type.Optional(
    Type.String({ pattern: VARIANT_NAME_PATTERN, description: "Refine this sample in one of the persona's `variants` (a de-DE text in the de-DE variant); default: the run's `variant`, else none" }),
  ),
};

export const Sample = Type.Object(
  { id: Type.String({ description: 'Kept while the sample is unchanged; a changed sample gets a new one' }), ...sampleFields },
  { $id: 'EvalSample', additionalProperties: false },
);
export type Sample = Static<typeof Sample>;
export type SampleIsTheDomains = Assignable<DomainSample, Sample>;

const SampleInputSchema = Type.Object(
  { id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The id of a sample read earlier; left out for a new sample' })), ...sampleFields },
  { additionalProperties: false },
);

export const SamplesBody = Type.Object(
  { samples: Type.Array(SampleInputSchema, { maxItems: SAMPLES_MAX, description: `The whole set, at most ${SAMPLES_MAX}` }) },
  { additionalProperties: false },
);
export type SamplesBody = Static<typeof SamplesBody>;
export type SamplesBodyIsTheDomains = Assignable<SamplesBody['samples'][number], SampleInput>;

export const SampleSet = Type.Object({ samples: Type.Array(Type.Ref('EvalSample')) }, { additionalProperties: false });

const providerKey = (description: string) =>
  Type.String({ minLength: 1, maxLength: PROVIDER_KEY_MAX_LENGTH, pattern: PROVIDER_KEY_PATTERN, description });
const modelName = (description: string) => Type.String({ minLength: 1, maxLength: 200, pattern: MODEL_PATTERN, description });

export const StartEvalBody = Type.Object(
  {
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: VERSION_MAX, description: 'The version to evaluate; not with label. Default: the newest' })),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: LABEL_MAX_LENGTH, description: 'Evaluate the version this label points at; not with version' })),
    variant: Type.Optional(
      Type.String({
        pattern: VARIANT_NAME_PATTERN,
        description: "Evaluate in one of that version's `variants` (a sample naming its own variant uses that one); an unknown one, the run's or a sample's, is a 400 listing the known ones",
      }),
    ),
    provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider id, as for POST /v1/refine' }),
    providerApiKey: Type.Optional(providerKey('The caller\'s own key for that provider; held in memory for the run only, never stored or logged. Required except for "rules"')),
    model: Type.Optional(modelName('Overrides the provider\'s default model')),
    judge: Type.Optional(
      Type.Union(
        [
          Type.Literal(true),
          Type.Object(
            {
              provider: Type.String({ minLength: 1, maxLength: 64 }),
              providerApiKey: providerKey('The judge\'s key; held in memory for the run only'),
              model: Type.Optional(modelName('Overrides the judge provider\'s default model')),
            },
            { additionalProperties: false },
          ),
        ],
        { description: 'Rate each answer\'s voice (docs/voice-score.md, "The formula"); `true` judges with the run\'s own provider, key and model' },
      ),
    ),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CONCURRENCY, description: `Samples refined at once (default ${DEFAULT_CONCURRENCY})` })),
  },
  {
    additionalProperties: false,
    if: { properties: { provider: { const: 'rules' } } },
    then: {},
    else: { required: ['providerApiKey'] },
  },
);
export type StartEvalBody = Static<typeof StartEvalBody>;
export type StartEvalBodyIsTheDomains = Assignable<StartEvalBody, StartEval>;

const Usage = Type.Object(
  { inputTokens: Type.Integer({ minimum: 0 }), outputTokens: Type.Integer({ minimum: 0 }), providerCalls: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false, description: 'Summed over every sample\'s refine (tokens as the providers reported them)' },
);

const Summary = Type.Object(
  {
    score: Type.Union([Type.Number(), Type.Null()], { description: 'Mean score of the answered samples (one decimal); null when none was answered' }),
    passRate: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the results that passed; a failed sample did not' }),
    minScore: Type.Union([Type.Integer(), Type.Null()], { description: 'The persona version\'s `minScore`, the bar `passed` used; null when it sets none' }),
    errored: Type.Integer({ minimum: 0, description: 'Samples that got no answer (their result has `error`); a run with any meets no label gate' }),
    violations: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { description: 'Rule id → findings left, over every answer' }),
    failedExpectations: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Terms of the samples\' `expect` that the answers did not meet, over every result; null for a run stored before results reported them',
    }),
    usage: Usage,
  },
  { additionalProperties: false, description: 'Over the results so far' },
);

const Scores = Type.Object(
  { rules: Type.Integer(), facts: Type.Integer(), voice: Type.Optional(Type.Integer()) },
  { additionalProperties: false },
);

export const Violation = Type.Object(
  {
    rule: Type.Union(RULE_IDS.map((id) => Type.Literal(id))),
    severity: Type.Union(SEVERITIES.map((s) => Type.Literal(s))),
    message: Type.String(),
    start: Type.Integer(),
    end: Type.Integer(),
    term: Type.Optional(Type.String({ description: 'For `terms` findings: the term base entry\'s `term`' })),
  },
  { additionalProperties: false },
);

export const EvalResult = Type.Object(
  {
    sampleId: Type.String(),
    response: Type.Union([Type.String(), Type.Null()], { description: 'The refined answer; null when the sample failed' }),
    score: Type.Union([Type.Integer(), Type.Null()], { description: 'The persona score of the answer (docs/voice-score.md)' }),
    scores: Type.Union([Scores, Type.Null()]),
    violations: Type.Array(Violation, { description: 'Findings left in the answer' }),
    passed: Type.Boolean({ description: 'No required finding, `expect` met, at or above the persona\'s `minScore`' }),
    expectations: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Object({ contains: Type.String(), met: Type.Boolean() }, { additionalProperties: false }),
          Type.Object({ notContains: Type.String(), met: Type.Boolean() }, { additionalProperties: false }),
        ]),
        {
          description:
            'Every term of the sample\'s `expect` (`contains` terms first), each `met` or not: a sample that fails only its `expect` says which term. ' +
            'Empty without `expect` or an answer; absent from results stored before they were reported',
        },
      ),
    ),
    judge: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              provider: Type.String(),
              model: Type.String(),
              ratings: Type.Array(
                Type.Object({ attribute: Type.String(), rating: Type.Integer({ minimum: 1, maximum: 5 }), reason: Type.String() }, { additionalProperties: false }),
              ),
              warning: Type.Optional(Type.String({ description: 'The persona sets no descriptive attribute: no judge call, no voice' })),
            },
            { additionalProperties: false },
          ),
          Type.Object({ error: Type.String() }, { additionalProperties: false }),
        ],
        { description: 'When judged: the ratings of the answer, or why the judge could not rate it (the sample still counts, scored without voice)' },
      ),
    ),
    error: Type.Optional(
      Type.Object({ error: Type.Integer(), message: Type.String() }, { additionalProperties: false, description: 'Why the sample has no answer: the refine\'s own error' }),
    ),
  },
  { $id: 'EvalResult', additionalProperties: false },
);

const runFields = {
  id: Type.String({ description: 'Time-ordered evaluation id' }),
  personaId: Type.String(),
  version: Type.Integer({ description: 'The persona version evaluated' }),
  variant: Type.Optional(Type.String({ description: 'The persona variant evaluated, when the run named one' })),
  status: Type.Union(['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted'].map((s) => Type.Literal(s))),
  createdAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  provider: Type.String(),
  model: Type.Union([Type.String(), Type.Null()], { description: 'The model asked for, or the provider\'s default; null for "rules"' }),
  judge: Type.Union([Type.Object({ provider: Type.String(), model: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: false }), Type.Null()], {
    description: 'The judge asked for (never its key); null when not judged',
  }),
  concurrency: Type.Integer(),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }, { additionalProperties: false }),
  summary: Summary,
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why a failed or interrupted run ended so' }),
};

export const EvalRun = Type.Object(runFields, { $id: 'EvalRun', additionalProperties: false });
export type EvalRun = Static<typeof EvalRun>;
export type EvalRunIsTheDomains = Assignable<DomainEvalRun, EvalRun>;

export const EvalRunWithResultsSchema = Type.Object(
  { ...runFields, results: Type.Array(Type.Ref('EvalResult'), { description: 'In the order of the samples' }) },
  { $id: 'EvalRunWithResults', additionalProperties: false },
);
export type EvalRunWithResultsBody = Static<typeof EvalRunWithResultsSchema>;
export type EvalRunWithResultsIsTheDomains = Assignable<EvalRunWithResults, EvalRunWithResultsBody>;

export const EvalRunList = Type.Array(Type.Ref('EvalRun'));

const Side = Type.Union([Type.Object({ score: Type.Union([Type.Integer(), Type.Null()]), passed: Type.Boolean() }, { additionalProperties: false }), Type.Null()], {
  description: 'Null when the sample is not in that run',
});
const ComparedSample = Type.Object(
  {
    sampleId: Type.String(),
    base: Side,
    head: Side,
    delta: Type.Union([Type.Integer(), Type.Null()], { description: 'head.score − base.score; null unless both were scored' }),
  },
  { additionalProperties: false },
);

export const EvalComparisonSchema = Type.Object(
  {
    base: Type.String(),
    head: Type.String(),
    samples: Type.Array(ComparedSample),
    regressions: Type.Array(ComparedSample, { description: 'The samples whose score fell by 10 or more, or that passed in base and fail in head' }),
  },
  { additionalProperties: false },
);
export type EvalComparisonBody = Static<typeof EvalComparisonSchema>;
export type EvalComparisonIsTheDomains = Assignable<EvalComparison, EvalComparisonBody>;

export const EvalParams = Type.Object({ id: Type.String({ description: 'Persona id' }), evalId: Type.String({ description: 'Evaluation id' }) });

export const ListEvalsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size (default 100)' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Cursor from the previous page\'s Link header' })),
  },
  { additionalProperties: false },
);

export const CompareQuery = Type.Object(
  {
    base: Type.String({ minLength: 1, maxLength: 200, description: 'The evaluation compared against' }),
    head: Type.String({ minLength: 1, maxLength: 200, description: 'The evaluation compared' }),
  },
  { additionalProperties: false },
);

/** The events of GET …/evals/{evalId}/events, published so the SDK's types come from them. */
export const EvalProgressEvent = Type.Object({ done: Type.Integer(), total: Type.Integer() }, { $id: 'EvalProgressEvent', additionalProperties: false });
export const EvalDoneEvent = Type.Object(
  { status: Type.Literal('completed'), summary: Summary },
  { $id: 'EvalDoneEvent', additionalProperties: false },
);
export const EvalErrorEvent = Type.Object(
  {
    status: Type.Union(['failed', 'cancelled', 'interrupted'].map((s) => Type.Literal(s))),
    message: Type.String(),
    summary: Summary,
  },
  { $id: 'EvalErrorEvent', additionalProperties: false },
);
