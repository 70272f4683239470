import { Type, type Static } from 'typebox';

export const CONTENT_MAX_LENGTH = 100_000;
export const PROVIDER_KEY_MAX_LENGTH = 4096;

export const RefineBody = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider id, e.g. "openai"' }),
    providerApiKey: Type.String({
      minLength: 1,
      maxLength: PROVIDER_KEY_MAX_LENGTH,
      description: "The caller's own key for that provider; used for this call only, never stored or logged",
    }),
    personaId: Type.String({ minLength: 1, maxLength: 200 }),
    content: Type.String({ minLength: 1, maxLength: CONTENT_MAX_LENGTH, description: 'The text to refine' }),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Overrides the provider's default model" })),
  },
  { additionalProperties: false },
);
export type RefineBody = Static<typeof RefineBody>;

export const RefineResponse = Type.Object(
  { response: Type.String({ description: 'The refined text' }) },
  { additionalProperties: false },
);
export type RefineResponse = Static<typeof RefineResponse>;
