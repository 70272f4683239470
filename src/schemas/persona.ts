import { Type, type Static } from '@sinclair/typebox';
import { ATTRIBUTE_CATALOGUE, ATTRIBUTE_KEYS, type JsonSchema } from '../personas/catalogue/index.js';
import { ATTRIBUTES_MAX_BYTES, ATTRIBUTES_MAX_DEPTH, NAME_MAX_LENGTH } from '../personas/persona-rules.js';
import type { NewPersona, PersonaUpdate } from '../personas/persona-service.js';
import { DRAFT_LIMITS } from '../personas/drafting/draft-prompt.js';
import type { Assignable } from './common.js';

// The limits are the domain's (docs/architecture.md, "The domain owns its types"); the schemas describe them.
export { ATTRIBUTES_MAX_BYTES, ATTRIBUTES_MAX_DEPTH, NAME_MAX_LENGTH };

/** Each well-known key as the catalogue defines it; null is accepted everywhere and sets nothing. */
function wellKnownProperties(): Record<string, JsonSchema> {
  return Object.fromEntries(
    ATTRIBUTE_KEYS.map((key) => {
      const { shape, description, example, rule } = ATTRIBUTE_CATALOGUE[key];
      const shapes = (shape.schema.anyOf as JsonSchema[] | undefined) ?? [shape.schema];
      const checked = rule ? ` Configures the \`${rule}\` rule.` : '';
      return [key, { description: description + checked, anyOf: [...shapes, { type: 'null' }], examples: [example] }];
    }),
  );
}

export const PersonaAttributes = Type.Unsafe<Record<string, unknown>>({
  $id: 'PersonaAttributes',
  type: 'object',
  properties: wellKnownProperties(),
  additionalProperties: true,
  description:
    'The voice, as a JSON object stored and returned verbatim (at most 64 KiB serialized, 32 levels deep; a term base `terms` has its own 256 KiB). ' +
    'The well-known keys below are stated to the model as instructions, and some configure the rules checked after generation; ' +
    'a write whose well-known key has none of its documented shapes is refused with 400. ' +
    'Any other key is yours: it is passed to the model as `key: value`.',
  examples: [{ tone: ['warm', 'direct'], avoid: ['synergy'], maxWords: 120, signOff: 'Cheers,\nThe Acme team' }],
});

/** Where a schema uses the attributes: one shared component in OpenAPI and in the SDK's types. */
export const attributesRef = Type.Unsafe<Record<string, unknown>>(Type.Ref('PersonaAttributes'));

/**
 * The attributes a persona or version is answered with: what was stored, verbatim. A persona
 * stored before shapes were checked may hold a well-known key of another shape, so a read
 * promises an object, not the shapes (docs/http-contract.md, "Response bodies").
 */
export const StoredPersonaAttributes = Type.Unsafe<Record<string, unknown>>({
  $id: 'StoredPersonaAttributes',
  anyOf: [Type.Ref('PersonaAttributes'), { type: 'object', additionalProperties: true }],
  description:
    'The attributes exactly as stored. Written since shapes were checked, each well-known key has one of its shapes (PersonaAttributes); ' +
    'a persona stored before then may hold another value there, which the prompt and the rules ignore and POST /v1/check warns about.',
});
export const storedAttributesRef = Type.Unsafe<Record<string, unknown>>(Type.Ref('StoredPersonaAttributes'));

export const PersonaName = Type.String({
  description: `Display name; surrounding whitespace is trimmed; 1-${NAME_MAX_LENGTH} characters`,
});

export const Persona = Type.Object(
  {
    id: Type.String({ description: 'Opaque, time-ordered identifier' }),
    name: Type.String(),
    attributes: storedAttributesRef,
  },
  { $id: 'Persona', additionalProperties: false },
);
export type Persona = Static<typeof Persona>;

const DraftWarning = Type.Object(
  {
    attribute: Type.Optional(Type.String({ description: 'The attribute it is about, when it is about one' })),
    message: Type.String({ description: "What of the model's answer was dropped, and why" }),
  },
  { additionalProperties: false },
);

/** A draft's (POST /v1/personas/draft): why each attribute was drafted. */
export const DraftEvidence = Type.Record(Type.String(), Type.String(), {
  description: `Per drafted attribute, a quote of at most ${DRAFT_LIMITS.quote} characters from a sample that shows it (blanks collapsed); every quote was found in a sample`,
});

/** A draft's (POST /v1/personas/draft): what of the model's answer it dropped. */
export const DraftWarnings = Type.Array(DraftWarning, {
  description:
    "What of the model's answer was dropped (a value of none of the attribute's shapes, an unknown member, a quote in no sample, a list past its bound); absent when nothing was",
});

export const CreatePersonaBody = Type.Object(
  {
    name: PersonaName,
    attributes: Type.Optional(attributesRef),
    // A draft is posted as it is: what only explains it is accepted and not stored.
    evidence: Type.Optional({ ...DraftEvidence, description: 'A draft\'s evidence (POST /v1/personas/draft), accepted so a draft can be posted as it is; not stored' }),
    warnings: Type.Optional({ ...DraftWarnings, description: 'A draft\'s warnings (POST /v1/personas/draft), accepted so a draft can be posted as it is; not stored' }),
  },
  { additionalProperties: false },
);
export type CreatePersonaBody = Static<typeof CreatePersonaBody>;
export type CreatePersonaBodyIsNewPersona = Assignable<CreatePersonaBody, NewPersona>;

export const UpdatePersonaBody = Type.Object(
  { name: Type.Optional(PersonaName), attributes: Type.Optional(attributesRef) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePersonaBody = Static<typeof UpdatePersonaBody>;
export type UpdatePersonaBodyIsPersonaUpdate = Assignable<UpdatePersonaBody, PersonaUpdate>;

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
