import { Type, type Static } from '@sinclair/typebox';
import type { DraftRequest, PersonaDraft } from '../personas/drafting/persona-drafter.js';
import { NAME_MAX_LENGTH } from '../personas/persona-rules.js';
import type { Assignable } from './common.js';
import { attributesRef, DraftEvidence, DraftWarnings, PersonaName } from './persona.js';
import { MODEL_PATTERN, PROVIDER_KEY_MAX_LENGTH, PROVIDER_KEY_PATTERN } from './refine.js';

export const MAX_DRAFT_SAMPLES = 20;
export const SAMPLE_MAX_LENGTH = 20_000;

export const DraftBody = Type.Object(
  {
    samples: Type.Array(Type.String({ minLength: 1, maxLength: SAMPLE_MAX_LENGTH }), {
      minItems: 1,
      maxItems: MAX_DRAFT_SAMPLES,
      description: `Texts written in the voice to draft (1-${MAX_DRAFT_SAMPLES}, each 1-${SAMPLE_MAX_LENGTH} characters): data the model describes, never instructions to it`,
    }),
    provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider id, e.g. "anthropic"; not "rules", which has no model' }),
    providerApiKey: Type.String({
      minLength: 1,
      maxLength: PROVIDER_KEY_MAX_LENGTH,
      pattern: PROVIDER_KEY_PATTERN,
      description: "The caller's own key for that provider: used for this call only, never stored, logged or echoed",
    }),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: MODEL_PATTERN, description: "Overrides the provider's default model" })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, description: "The draft's name; else the model's, else \"Drafted persona\"" })),
  },
  { additionalProperties: false },
);
export type DraftBody = Static<typeof DraftBody>;
export type DraftBodyIsDraftRequest = Assignable<DraftBody, DraftRequest>;

export const PersonaDraftResponse = Type.Object(
  {
    name: PersonaName,
    attributes: attributesRef,
    evidence: DraftEvidence,
    warnings: Type.Optional(DraftWarnings),
  },
  { additionalProperties: false, description: 'A persona drafted from samples, stored nowhere: POST it to /v1/personas as it is' },
);
export type PersonaDraftResponse = Static<typeof PersonaDraftResponse>;
export type PersonaDraftIsTheResponse = Assignable<PersonaDraft, PersonaDraftResponse>;
