import { Type, type Static } from '@sinclair/typebox';
import { USAGE_ENDPOINTS } from '../usage/request-usage.js';
import type { UsageAnswerRow } from '../usage/usage-service.js';
import type { Assignable } from './common.js';

const Day = (description: string) => Type.String({ maxLength: 10, description, examples: ['2026-11-01'] });

export const UsageQuery = Type.Object(
  {
    from: Type.Optional(Day('First UTC day, YYYY-MM-DD, inclusive. Default: the first day of the current month')),
    to: Type.Optional(Day('Last UTC day, YYYY-MM-DD, inclusive. Default: today')),
    groupBy: Type.Optional(
      Type.Literal('key', { description: '`key`: one row per API key too, each with its `keyId` (null for counts from before keys were tracked)' }),
    ),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const UsageRow = Type.Object(
  {
    day: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
    provider: Type.String({ description: 'The provider id' }),
    model: Type.Union([Type.String(), Type.Null()], {
      description: 'The resolved model; null for the offline "rules" provider, which has none (as in GET /v1/providers)',
    }),
    endpoint: Type.Union(USAGE_ENDPOINTS.map((endpoint) => Type.Literal(endpoint)), {
      description:
        'What was asked: `refine` (POST /v1/refine, checks and evaluations), `chat` (POST /v1/chat/completions) or `drafted` (POST /v1/personas/draft); ' +
        'the rows before API 1.4.0 are all `refine`',
    }),
    refines: count('Refines (chat completions for `endpoint` `chat`, drafts for `drafted`) this provider/model answered, cache hits included'),
    failures: count('Refines in which this provider/model failed (whether or not a fallback then answered)'),
    cacheHits: count('Refines answered from the cache'),
    providerCalls: count(
      'HTTP requests sent to the provider: every attempt, retries, repair calls and attempts that got no answer ' +
        '(refused connection, timeout) included, since each may be billed or rate-limited',
    ),
    inputTokens: count('Input tokens the provider reported'),
    outputTokens: count('Output tokens the provider reported'),
    keyId: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'With `groupBy=key` only: the API key that refined; null for counts from before keys were tracked',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageRow = Static<typeof UsageRow>;
export type UsageAnswerRowIsUsageRow = Assignable<UsageAnswerRow, UsageRow>;

export const UsageList = Type.Array(UsageRow);
