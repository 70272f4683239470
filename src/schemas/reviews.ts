/** The review queue over HTTP (docs/quality.md, "The review queue"): the shapes, which describe the domain's. */
import { Type, type Static } from '@sinclair/typebox';
import { type Keep, KEEP, RETENTION_DAYS_MAX, type RetentionPolicy as DomainRetentionPolicy } from '../quality/retention-policies.js';
import type { NewSample, Review as DomainReview } from '../quality/review-queue.js';
import { SAMPLE_NAME_MAX_LENGTH } from '../evals/samples.js';
import { ANSWER_ENDPOINTS } from '../usage/request-usage.js';
import type { Assignable } from './common.js';
import { Expectation, Violation } from './evals.js';

export const RetentionPolicy = Type.Object(
  {
    // An enum, not a union of literals: a wrong value is answered with the values allowed.
    keep: Type.Unsafe<Keep>({
      type: 'string',
      enum: [...KEEP],
      description:
        '`none` (the default) keeps nothing and deletes what was kept; `belowMinScore`: answers under the version\'s `minScore` or with a required finding; ' +
        '`flagged`: those, plus any rated `down` within 24 h; `all`: every answer',
    }),
    days: Type.Integer({ minimum: 1, maximum: RETENTION_DAYS_MAX, description: `How long a kept answer stays, 1–${RETENTION_DAYS_MAX} days` }),
  },
  { additionalProperties: false },
);
export type RetentionPolicy = Static<typeof RetentionPolicy>;
export type RetentionPolicyIsTheDomains = Assignable<RetentionPolicy, DomainRetentionPolicy>;
export type DomainRetentionPolicyIsIt = Assignable<DomainRetentionPolicy, RetentionPolicy>;

const Status = Type.Union([Type.Literal('open'), Type.Literal('resolved')]);

export const Review = Type.Object(
  {
    requestId: Type.String({ description: 'The X-Request-Id of the refine or chat completion' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was answered' }),
    version: Type.Integer({ minimum: 1, description: 'The persona version that answered' }),
    endpoint: Type.Union(ANSWER_ENDPOINTS.map((endpoint) => Type.Literal(endpoint)), { description: 'Which route answered' }),
    content: Type.String({ description: 'The caller\'s text as sent: a refine\'s `content`, a chat completion\'s last user message' }),
    response: Type.String({ description: 'The answer as sent' }),
    score: Type.Integer({ minimum: 0, maximum: 100, description: 'Its persona score (X-Persona-Score)' }),
    violations: Type.Array(Violation, { description: 'The findings left in the answer' }),
    feedback: Type.Optional(
      Type.Object(
        { rating: Type.Union([Type.Literal('up'), Type.Literal('down')]), correctedText: Type.Optional(Type.String()), comment: Type.Optional(Type.String()) },
        { additionalProperties: false, description: 'The feedback given on the answer (POST /v1/feedback), if any' },
      ),
    ),
    status: Status,
    sampleId: Type.Optional(Type.String({ description: 'The evaluation sample its resolve added' })),
  },
  { $id: 'Review', additionalProperties: false },
);
export type Review = Static<typeof Review>;
export type ReviewIsTheDomains = Assignable<DomainReview, Review>;

export const ReviewList = Type.Array(Type.Ref('Review'));

export const ReviewQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')], { description: '`open` (default) or `resolved`' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size (default 100)' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Cursor from the previous page\'s Link header' })),
  },
  { additionalProperties: false },
);
export type ReviewQuery = Static<typeof ReviewQuery>;

export const ReviewParams = Type.Object({
  id: Type.String({ description: 'Persona id' }),
  requestId: Type.String({ minLength: 1, maxLength: 128, description: 'The X-Request-Id of the kept answer' }),
});

export const ResolveBody = Type.Object(
  {
    addSample: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: SAMPLE_NAME_MAX_LENGTH, description: 'A label for people' })),
          expect: Type.Optional(Expectation),
        },
        { additionalProperties: false, description: 'Append the review\'s `content` to the persona\'s evaluation samples, with this name and expectation' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ResolveBody = Static<typeof ResolveBody>;
export type NewSampleIsTheDomains = Assignable<NonNullable<ResolveBody['addSample']>, NewSample>;
