/** Quality on live traffic and feedback (docs/quality.md): the HTTP shapes, which describe the domain's. */
import { Type, type Static } from '@sinclair/typebox';
import type { Feedback as DomainFeedback, FeedbackInput } from '../quality/feedback-service.js';
import type { QualityAnswerRow } from '../quality/quality-report.js';
import type { Assignable } from './common.js';

const Day = (description: string) => Type.String({ maxLength: 10, description, examples: ['2026-11-01'] });
const count = (description: string) => Type.Integer({ minimum: 0, description });

export const QualityQuery = Type.Object(
  {
    from: Type.Optional(Day('First UTC day, YYYY-MM-DD, inclusive. Default: 29 days before today')),
    to: Type.Optional(Day('Last UTC day, YYYY-MM-DD, inclusive. Default: today')),
    groupBy: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('version')], {
        description: '`day` (default): one row per UTC day with answers or feedback, oldest first; `version`: one row per persona version over the range, lowest first',
      }),
    ),
  },
  { additionalProperties: false },
);
export type QualityQuery = Static<typeof QualityQuery>;

export const QualityRow = Type.Object(
  {
    day: Type.Optional(Type.String({ description: 'With `groupBy=day`: the UTC day, YYYY-MM-DD' })),
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'With `groupBy=version`: the persona version that answered' })),
    answers: count('Refines, chat completions and checks answered with the persona (cache hits and the `rules` provider included; failed or abandoned ones not)'),
    meanScore: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: 'The answers\' mean persona score (X-Persona-Score), two decimals; null when the row has feedback but no answers',
    }),
    belowMinScore: count('Answers scored under the version\'s `minScore` (0 when it sets none)'),
    withRequiredFindings: count('Answers with at least one finding of a required rule left'),
    findings: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Findings left in the answers, by rule (`avoid`, `maxWords`, …)' }),
    feedback: Type.Object(
      { up: count('Answers rated up'), down: count('Answers rated down') },
      { additionalProperties: false, description: 'Feedback on these answers, counted on the answer\'s day and version' },
    ),
    tokens: Type.Object(
      { input: count('Input tokens'), output: count('Output tokens') },
      {
        additionalProperties: false,
        description: 'The tokens the providers reported for these answers, every call of each (fallbacks, the repair, the judge), as X-Usage sums them; ' +
          'the `rules` provider and cache hits cost 0',
      },
    ),
  },
  { additionalProperties: false },
);
export type QualityRow = Static<typeof QualityRow>;
export type QualityAnswerRowIsQualityRow = Assignable<QualityAnswerRow, QualityRow>;

export const QualityList = Type.Object({ rows: Type.Array(QualityRow) }, { additionalProperties: false });

/** A corrected answer is a text like a refine's content; a comment is a sentence or two. */
export const MAX_CORRECTED_TEXT = 65_536;
export const MAX_COMMENT = 4_096;

const Rating = Type.Union([Type.Literal('up'), Type.Literal('down')], { description: 'Whether the answer was good' });

export const FeedbackBody = Type.Object(
  {
    requestId: Type.String({ minLength: 1, maxLength: 128, description: 'The X-Request-Id of one of this account\'s refines or chat completions of the last 30 days' }),
    rating: Rating,
    correctedText: Type.Optional(Type.String({ maxLength: MAX_CORRECTED_TEXT, description: 'The answer as it should have been (at most 65,536 characters)' })),
    comment: Type.Optional(Type.String({ maxLength: MAX_COMMENT, description: 'Why (at most 4,096 characters)' })),
  },
  { additionalProperties: false },
);
export type FeedbackBody = Static<typeof FeedbackBody>;
export type FeedbackBodyIsTheDomains = Assignable<FeedbackBody, FeedbackInput>;

export const Feedback = Type.Object(
  {
    id: Type.String({ description: 'Time-ordered feedback id; also the paging cursor' }),
    requestId: Type.String({ description: 'The request whose answer it rates' }),
    personaId: Type.String({ description: 'The persona that answered' }),
    version: Type.Integer({ minimum: 1, description: 'The persona version that answered' }),
    rating: Rating,
    correctedText: Type.Optional(Type.String()),
    comment: Type.Optional(Type.String()),
    createdAt: Type.String({ format: 'date-time', description: 'When it was given (a replacement has its own)' }),
  },
  { $id: 'Feedback', additionalProperties: false },
);
export type Feedback = Static<typeof Feedback>;
export type FeedbackIsTheDomains = Assignable<DomainFeedback, Feedback>;

export const FeedbackList = Type.Array(Type.Ref('Feedback'));

export const FeedbackQuery = Type.Object(
  {
    rating: Type.Optional(Rating),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size (default 100)' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Cursor from the previous page\'s Link header' })),
  },
  { additionalProperties: false },
);
export type FeedbackQuery = Static<typeof FeedbackQuery>;
