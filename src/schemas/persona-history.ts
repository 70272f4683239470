import { Type, type Static } from '@sinclair/typebox';
import { VERSION_MAX } from '../personas/etag.js';
import { VARIANT_NAME_PATTERN } from '../personas/catalogue/index.js';
import { LABEL_MAX_LENGTH, LATEST_LABEL, type PersonaLabels as DomainLabels } from '../personas/labels.js';
import type { Assignable } from './common.js';
import { storedAttributesRef } from './persona.js';

export { LABEL_MAX_LENGTH, LATEST_LABEL };
const LABEL_RULE = `lowercase letters, digits and "-", 1-${LABEL_MAX_LENGTH} characters; "${LATEST_LABEL}" always means the newest version`;

export const PersonaVersion = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: 'The number the persona\'s ETag carried when this version was current' }),
    name: Type.String(),
    attributes: storedAttributesRef,
    createdAt: Type.String({ format: 'date-time', description: 'When this version was made' }),
    createdBy: Type.Union([Type.String(), Type.Null()], {
      description: 'Id of the API key that made it (never the key); null for versions recorded before history was kept',
    }),
  },
  { $id: 'PersonaVersion', additionalProperties: false },
);
export type PersonaVersion = Static<typeof PersonaVersion>;

export const PersonaVersionList = Type.Array(Type.Ref('PersonaVersion'));

/** Stored as a 32-bit integer on PostgreSQL: a larger number is a 400, not a database error. */
export { VERSION_MAX };
export const VersionNumber = Type.Integer({ minimum: 1, maximum: VERSION_MAX, description: 'Version number (1, 2, 3 …)' });

export const VersionParams = Type.Object({ id: Type.String({ description: 'Persona id' }), version: VersionNumber });
export type VersionParams = Static<typeof VersionParams>;

export const LabelParams = Type.Object({
  id: Type.String({ description: 'Persona id' }),
  label: Type.String({ description: `Label name: ${LABEL_RULE}` }),
});
export type LabelParams = Static<typeof LabelParams>;

export const SetLabelBody = Type.Object(
  { version: Type.Integer({ minimum: 1, maximum: VERSION_MAX, description: 'An existing version of the persona the label should point at' }) },
  { additionalProperties: false },
);
export type SetLabelBody = Static<typeof SetLabelBody>;

export const PersonaLabels = Type.Record(Type.String(), Type.Integer(), {
  description: 'Each label and the version it points at, e.g. { "production": 3, "staging": 5 }; "latest" is implicit and not listed',
});
export type PersonaLabels = Static<typeof PersonaLabels>;

export type PersonaLabelsAreDomainLabels = Assignable<PersonaLabels, DomainLabels>;

export const ListVersionsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size; enables paging' })),
    cursor: Type.Optional(Type.Integer({ minimum: 0, maximum: VERSION_MAX, description: 'Cursor from the previous page\'s Link header (the last version it held)' })),
  },
  { additionalProperties: false },
);
export type ListVersionsQuery = Static<typeof ListVersionsQuery>;

/** On refine and check: which version of the persona to use. */
export const PersonaPinFields = {
  personaVersion: Type.Optional(Type.Integer({ minimum: 1, maximum: VERSION_MAX, description: 'Use this version of the persona instead of the newest; not with personaLabel' })),
  personaLabel: Type.Optional(
    Type.String({ minLength: 1, maxLength: LABEL_MAX_LENGTH, description: `Use the version this label points at (${LABEL_RULE}); not with personaVersion` }),
  ),
  variant: Type.Optional(
    Type.String({
      pattern: VARIANT_NAME_PATTERN,
      description:
        "One of the persona version's `variants`, merged over its attributes (docs/rules-and-attributes.md, \"Variants\"); an unknown one is a 400 naming the known ones. " +
        'The answer carries `X-Persona-Variant`.',
    }),
  ),
};

/** Response headers of refine and check, for the OpenAPI document. */
export const PersonaVersionHeader = {
  'X-Persona-Version': Type.Integer({ description: 'The persona version used: the pinned one, else the newest' }),
  'X-Persona-Variant': Type.Optional(Type.String({ description: "The persona's variant used, when the request named one" })),
};
