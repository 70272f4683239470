import { Type, type Static } from '@sinclair/typebox';
import type { CheckRequest, CheckVerdict } from '../refine/persona-check.js';
import type { RefineRequest } from '../refine/refine-request.js';
import { RULE_IDS, SEVERITIES } from '../rules/types.js';
import type { Assignable } from './common.js';
import { PersonaPinFields } from './persona-history.js';
import { VARIANT_NAME_PATTERN } from '../personas/catalogue/index.js';

export const CONTENT_MAX_LENGTH = 100_000;
export const PROVIDER_KEY_MAX_LENGTH = 4096;

export const MAX_FALLBACKS = 3;

/**
 * A model name reaches a provider's URL or body and our `X-Provider` header, so it is a
 * documented character set (every provider's model ids fit it: `gpt-5.4-mini`,
 * `llama3.2:latest`, `anthropic/claude-3.5-sonnet`, `@cf/meta/llama-3-8b`), checked before
 * any provider is called.
 */
export const MODEL_PATTERN = '^[A-Za-z0-9._:/@+=~-]+$';
const modelName = (description: string) => Type.String({ minLength: 1, maxLength: 200, pattern: MODEL_PATTERN, description });
/** Printable ASCII without blanks: what every provider's keys are, and all an HTTP header can carry. */
export const PROVIDER_KEY_PATTERN = '^[\\x21-\\x7E]+$';

/** How a value failing each pattern is told, completing "<field> …"; never echoing the value (a key is a secret). */
export const PATTERN_MESSAGES: Record<string, string> = {
  [MODEL_PATTERN]: 'may contain only letters A-Z and a-z, digits and . _ - : / @ + = ~',
  [PROVIDER_KEY_PATTERN]: 'must be printable ASCII without spaces, line breaks or other control characters',
  [VARIANT_NAME_PATTERN]: 'must be 1-40 letters A-Z and a-z, digits, "_" and "-"',
};

const Fallback = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider id, e.g. "anthropic"' }),
    providerApiKey: Type.String({
      minLength: 1,
      maxLength: PROVIDER_KEY_MAX_LENGTH,
      pattern: PROVIDER_KEY_PATTERN,
      description: "The caller's own key for that provider; a secret exactly like the top-level providerApiKey.",
    }),
    model: Type.Optional(modelName("Overrides that provider's default model")),
  },
  { additionalProperties: false },
);
export type Fallback = Static<typeof Fallback>;

const providerKey = (description: string) =>
  Type.String({ minLength: 1, maxLength: PROVIDER_KEY_MAX_LENGTH, pattern: PROVIDER_KEY_PATTERN, description });

/** Who rates a text's voice (docs/voice-score.md, "The judge"). */
const Judge = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider id of the judge, e.g. "anthropic"; not "rules", which has no model' }),
    providerApiKey: providerKey("The caller's own key for the judge's provider; a secret exactly like providerApiKey: used for this call only, never stored, logged or echoed"),
    model: Type.Optional(modelName("Overrides the judge provider's default model")),
  },
  { additionalProperties: false },
);

const JUDGE_DESCRIPTION =
  "Has the text rated 1–5 against each of the persona's descriptive attributes (the well-known ones that are no rule, control or `examples`, and the author's own keys) " +
  "through the provider's structured output; `scores.voice` is the mean rating mapped 1 → 0 … 5 → 100. A judge that fails (an answer that does not fit the schema twice, " +
  'a provider error, a timeout) never fails the request: the score is then the deterministic one, and the judge says why in `error`.';

const Rating = Type.Object(
  {
    attribute: Type.String({ description: 'The attribute key, as the persona spells it' }),
    rating: Type.Integer({ minimum: 1, maximum: 5, description: '5 fully matches, 4 mostly, 3 partly, 2 barely, 1 not at all' }),
    reason: Type.String({ maxLength: 500, description: "The judge's one-sentence reason" }),
  },
  { additionalProperties: false },
);

const JudgeWarning = Type.String({
  description: 'Present when the persona sets no descriptive attribute: the judge made no call and the score has no voice; says which attributes it would have rated',
});

/** What the judge said: `{ provider, model, ratings, warning? }` or `{ error }`. */
const JudgeVerdict = Type.Union(
  [
    Type.Object(
      {
        provider: Type.String(),
        model: Type.String(),
        ratings: Type.Array(Rating, { description: "In the order the persona's attributes are stated; empty (and no provider call) when it sets no descriptive attribute" }),
        warning: Type.Optional(JudgeWarning),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { error: Type.String({ description: 'Why the judge gave no ratings, every key scrubbed; the score is then the deterministic one' }) },
      { additionalProperties: false },
    ),
  ],
  { description: 'Present when the request asked for a judge' },
);

export const RefineBody = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider id, e.g. "openai"; "rules" applies only the persona\'s deterministic rules' }),
    providerApiKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: PROVIDER_KEY_MAX_LENGTH,
        pattern: PROVIDER_KEY_PATTERN,
        description: "The caller's own key for that provider; used for this call only, never stored or logged. Required for every provider except \"rules\".",
      }),
    ),
    personaId: Type.String({ minLength: 1, maxLength: 200 }),
    ...PersonaPinFields,
    content: Type.String({ minLength: 1, maxLength: CONTENT_MAX_LENGTH, description: 'The text to refine' }),
    model: Type.Optional(modelName("Overrides the provider's default model")),
    stream: Type.Optional(
      Type.Boolean({
        description:
          'Answer with server-sent events (`text/event-stream`): `delta` events `{ "text" }`, then `done` ' +
          '`{ "response", "violations", "usage" }` or `error` `{ "error", "message" }`. Default false.',
      }),
    ),
    judge: Type.Optional(
      Type.Union([Judge, Type.Literal(true)], {
        description:
          `${JUDGE_DESCRIPTION} \`true\` judges with the refine's own provider, key and model (not with \`rules\`). The answer carries \`X-Persona-Ratings\` ` +
          '(`attribute=rating` pairs, attribute names percent-encoded), `X-Persona-Judge-Error` when the judge failed, or `X-Persona-Judge-Warning` when the persona ' +
          'sets no descriptive attribute to rate (no judge call); a streamed `done` carries `judge`. ' +
          "When the persona sets `minScore` and the judged score is under it, the refine's one repair call also names the low-rated attributes with the judge's reasons.",
      }),
    ),
    fallbacks: Type.Optional(
      Type.Array(Fallback, {
        maxItems: MAX_FALLBACKS,
        description:
          'Tried in order when the previous provider fails in a way that may pass (429, 5xx, overloaded, connection failure, timeout); ' +
          'never when it rejects the key or the request. Same persona prompt; all attempts share one deadline.',
      }),
    ),
  },
  {
    additionalProperties: false,
    // The offline "rules" provider needs no key; every real provider does.
    if: { properties: { provider: { const: 'rules' } } },
    then: {},
    else: { required: ['providerApiKey'] },
  },
);
export type RefineBody = Static<typeof RefineBody>;
export type RefineBodyIsRefineRequest = Assignable<RefineBody, RefineRequest>;

export const RefineResponse = Type.Object(
  { response: Type.String({ description: 'The refined text' }) },
  { additionalProperties: false },
);
export type RefineResponse = Static<typeof RefineResponse>;

/** Rule id → how many times the answer still breaks it, as X-Persona-Violations counts them. */
const ViolationCounts = Type.Record(Type.String(), Type.Integer({ minimum: 1 }), {
  description: 'Rules still broken, by rule id (`{}` when none); a stream gets no repair call',
});

export const StreamUsage = Type.Object(
  {
    inputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    outputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    providerCalls: Type.Integer({ minimum: 0, description: 'Calls made, a fallback\'s failed ones included' }),
  },
  {
    additionalProperties: false,
    description: 'What `X-Usage` says for a whole answer: the tokens the providers reported (a member is absent when one did not), and the calls made',
  },
);

/** `event: delta` of a streamed refine. */
export const StreamDelta = Type.Object(
  { text: Type.String({ description: 'The next piece of the refined text' }) },
  { $id: 'StreamDelta', additionalProperties: false },
);
export type StreamDelta = Static<typeof StreamDelta>;

/** `event: done`, the last event of a streamed refine that succeeded. */
export const StreamDone = Type.Object(
  {
    response: Type.String({ description: "The whole result: exactly the concatenation of every delta's text, unless `replaced`" }),
    violations: ViolationCounts,
    score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'The score of `response`, as X-Persona-Score gives it for an answer not streamed: deterministic, with the voice when judged',
    }),
    usage: StreamUsage,
    judge: Type.Optional(JudgeVerdict),
    replaced: Type.Optional(
      Type.Literal(true, {
        description:
          'Present (true) only if the deltas shown are not a prefix of the result, which would be a bug of the service: ' +
          '`response` is then the true result and replaces what was shown. Logged and counted.',
      }),
    ),
  },
  { $id: 'StreamDone', additionalProperties: false },
);
export type StreamDone = Static<typeof StreamDone>;

/** Response headers of every refine answer that is not streamed. */
export const PersonaScoreHeader = {
  'X-Persona-Score': Type.Integer({ minimum: 0, maximum: 100, description: 'The score of the answer (0–100), as POST /v1/check computes it; with the voice when judged' }),
  'X-Persona-Ratings': Type.Optional(
    Type.String({ description: 'A judged refine: the ratings of the answer, `attribute=rating` pairs joined by commas, attribute names percent-encoded (`tone=4,my%20key=5`)' }),
  ),
  'X-Persona-Judge-Error': Type.Optional(
    Type.String({ description: 'A judged refine whose judge failed: why (every key scrubbed; characters outside printable ASCII, and %, percent-encoded)' }),
  ),
  'X-Persona-Judge-Warning': Type.Optional(
    Type.String({
      description: 'A judged refine whose persona sets no descriptive attribute: no judge call was made and the score has no voice; says why (encoded as X-Persona-Judge-Error is)',
    }),
  ),
};

const Score = (description: string) => Type.Integer({ minimum: 0, maximum: 100, description });

const SubScores = Type.Object(
  {
    rules: Score('100 less a penalty per finding of the text\'s own rules (10 required, 4 recommended)'),
    facts: Score("The share of `original`'s numbers, links, code and placeholders the text kept; 100 without `original`"),
    voice: Type.Optional(Score("The judge's mean rating of the persona's descriptive attributes, 1 → 0 … 5 → 100; present only when judged")),
  },
  { additionalProperties: false },
);

export const CheckBody = Type.Object(
  {
    personaId: Type.String({ minLength: 1, maxLength: 200 }),
    ...PersonaPinFields,
    content: Type.String({ minLength: 1, maxLength: CONTENT_MAX_LENGTH, description: 'The text to check' }),
    original: Type.Optional(
      Type.String({
        maxLength: CONTENT_MAX_LENGTH,
        description:
          'The text `content` was rewritten from (by this service or anything else): its numbers, URLs, e-mail addresses, code and template placeholders must all be in `content`',
      }),
    ),
    judge: Type.Optional({ ...Judge, description: JUDGE_DESCRIPTION }),
  },
  { additionalProperties: false },
);
export type CheckBody = Static<typeof CheckBody>;
export type CheckBodyIsCheckRequest = Assignable<CheckBody, CheckRequest>;

export const CheckResponse = Type.Object(
  {
    passed: Type.Boolean({
      description: "True when no required finding remains and, if the persona sets `minScore`, `score` reaches it",
    }),
    score: Score('How well the text matches the persona: `scores` combined with the weights of the documentation'),
    scores: SubScores,
    violations: Type.Array(
      Type.Object(
        {
          rule: Type.String({ description: `The rule id: ${RULE_IDS.join(', ')}` }),
          severity: Type.Union(
            SEVERITIES.map((severity) => Type.Literal(severity)),
            { description: 'required (the default) fails the check; recommended only lowers the score. Set per rule by the `enforce` attribute' },
          ),
          message: Type.String(),
          start: Type.Integer({
            description: 'Offset of the offending span (UTF-16 code units) in `content`; for `preserve` and a lost kept term, of the lost item in `original`',
          }),
          end: Type.Integer({ description: 'End offset, exclusive' }),
          term: Type.Optional(Type.String({ description: 'For `terms` findings: the term base entry\'s `term`' })),
        },
        { additionalProperties: false },
      ),
    ),
    warnings: Type.Array(
      Type.Object(
        {
          attribute: Type.String({ description: 'A well-known attribute key' }),
          message: Type.String({ description: 'The shapes it accepts' }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Well-known attributes the persona holds with a value of none of their shapes (only personas stored before ' +
          'shapes were checked can): the prompt and the rules ignore them until they are fixed. Empty when none.',
      },
    ),
    judge: Type.Optional(JudgeVerdict),
  },
  { additionalProperties: false },
);
export type CheckResponse = Static<typeof CheckResponse>;
export type CheckVerdictIsCheckResponse = Assignable<CheckVerdict, CheckResponse>;
