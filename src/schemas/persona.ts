import { Type, type Static } from '@sinclair/typebox';

export const NAME_MAX_LENGTH = 200;
export const ATTRIBUTES_MAX_BYTES = 64 * 1024;
export const ATTRIBUTES_MAX_DEPTH = 32;

export const PersonaAttributes = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description:
    'Free-form JSON object describing the voice; stored and returned verbatim (at most 64 KiB serialized). ' +
    'Well-known keys: description, tone, formality, audience, personality, readingLevel, language, length, ' +
    'emoji, vocabulary, avoid, signOff, examples, instructions.',
});

export const PersonaName = Type.String({
  description: `Display name; surrounding whitespace is trimmed; 1-${NAME_MAX_LENGTH} characters`,
});

export const Persona = Type.Object(
  {
    id: Type.String({ description: 'Opaque, time-ordered identifier' }),
    name: Type.String(),
    attributes: PersonaAttributes,
  },
  { $id: 'Persona', additionalProperties: false },
);
export type Persona = Static<typeof Persona>;

export const CreatePersonaBody = Type.Object(
  { name: PersonaName, attributes: Type.Optional(PersonaAttributes) },
  { additionalProperties: false },
);
export type CreatePersonaBody = Static<typeof CreatePersonaBody>;

export const UpdatePersonaBody = Type.Object(
  { name: Type.Optional(PersonaName), attributes: Type.Optional(PersonaAttributes) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePersonaBody = Static<typeof UpdatePersonaBody>;

export const PersonaParams = Type.Object({ id: Type.String({ description: 'Persona id' }) });
export type PersonaParams = Static<typeof PersonaParams>;

export const ListPersonasQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size; enables paging' })),
    cursor: Type.Optional(Type.String({ description: 'Opaque cursor from the previous page\'s Link header' })),
  },
  { additionalProperties: false },
);
export type ListPersonasQuery = Static<typeof ListPersonasQuery>;

export const PersonaList = Type.Array(Type.Ref('Persona'));
