import { Type, type Static } from '@sinclair/typebox';
import type { KeyRecord, KeyWithSecret, NewKey } from '../accounts/key-service.js';
import { SCOPE_GRANTS } from '../accounts/scopes.js';
import type { Assignable } from './common.js';

export const ScopeName = Type.Union(
  SCOPE_GRANTS.map((scope) => Type.Literal(scope)),
  { description: 'A scope (docs/keys-and-scopes.md): `*` grants every scope' },
);

export const KeyLimits = Type.Object(
  {
    tokensPerDay: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 1e12 }), Type.Null()], {
        description: 'Input + output tokens (as X-Usage counts them) this key may spend per UTC day; null for no budget',
      }),
    ),
    refinesPerMinute: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 1e6 }), Type.Null()], { description: 'Refines this key may start per minute; null for no limit' }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKey = Type.Object(
  {
    id: Type.String({ description: 'The key id (`key_…`): not a secret' }),
    name: Type.String(),
    scopes: Type.Array(ScopeName),
    prefix: Type.String({ description: 'The first characters of the secret, to recognise it' }),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    limits: Type.Object(
      {
        tokensPerDay: Type.Union([Type.Integer(), Type.Null()]),
        refinesPerMinute: Type.Union([Type.Integer(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
    previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'After a rotation with a grace: until when the previous secret is still accepted (null when it is not)',
    }),
  },
  { $id: 'ApiKey', additionalProperties: false },
);
export type ApiKey = Static<typeof ApiKey>;
export type KeyRecordIsApiKey = Assignable<KeyRecord, ApiKey>;

export const IssuedApiKey = Type.Composite(
  [
    Type.Omit(ApiKey, ['previousSecretExpiresAt']),
    Type.Object({
      previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      secret: Type.String({ description: 'The key itself: shown in this answer only, stored only as a SHA-256 hash' }),
    }),
  ],
  { $id: 'IssuedApiKey', additionalProperties: false },
);
export type IssuedApiKey = Static<typeof IssuedApiKey>;
export type KeyWithSecretIsIssuedApiKey = Assignable<KeyWithSecret, IssuedApiKey>;

export const ApiKeyList = Type.Array(Type.Ref('ApiKey'));

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for ("blog app", "CI")' }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: 20, uniqueItems: true, description: 'At most the scopes of the key making the request' }),
    expiresAt: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'A date-time with its zone (e.g. 2027-01-01T00:00:00Z), before 10000-01-01T00:00:00Z: after it the key is refused with 401' })),
    limits: Type.Optional(KeyLimits),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;
export type CreateKeyBodyIsNewKey = Assignable<CreateKeyBody, NewKey>;

export const RotateKeyBody = Type.Object(
  {
    graceSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86_400, description: 'How long the old secret keeps working (default 0: it stops at once, within 5 s)' }),
    ),
  },
  { additionalProperties: false },
);
export type RotateKeyBody = Static<typeof RotateKeyBody>;

export const KeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/** The key making the request: what the studio needs to know which controls to offer. */
export const CurrentKey = Type.Object(
  {
    id: Type.String(),
    scopes: Type.Array(ScopeName),
    limits: ApiKey.properties.limits,
  },
  { additionalProperties: false },
);
