import { Type, type Static } from '@sinclair/typebox';
import type { LabelPolicy as DomainLabelPolicy, LabelPolicyChange } from '../personas/label-policies.js';
import type { Assignable } from './common.js';

const notEnforced = 'Stored and answered, not enforced yet (evaluations come later)';

export const LabelPolicyBody = Type.Object(
  {
    protected: Type.Optional(
      Type.Boolean({ description: 'Moving or removing the label needs the scope `labels:protected`. Left out: the label keeps its current protection' }),
    ),
    minScore: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], { description: notEnforced })),
    minPassRate: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: notEnforced })),
    maxAgeDays: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], { description: notEnforced })),
  },
  { additionalProperties: false },
);
export type LabelPolicyBody = Static<typeof LabelPolicyBody>;
export type LabelPolicyBodyIsTheDomains = Assignable<LabelPolicyBody, LabelPolicyChange>;

export const LabelPolicy = Type.Object(
  {
    label: Type.String(),
    protected: Type.Boolean(),
    minScore: Type.Union([Type.Integer(), Type.Null()], { description: notEnforced }),
    minPassRate: Type.Union([Type.Number(), Type.Null()], { description: notEnforced }),
    maxAgeDays: Type.Union([Type.Integer(), Type.Null()], { description: notEnforced }),
    isDefault: Type.Boolean({ description: 'True when no policy was set: `production` is then protected, other labels are not' }),
  },
  { $id: 'LabelPolicy', additionalProperties: false },
);
export type LabelPolicy = Static<typeof LabelPolicy>;
export type LabelPolicyIsTheDomains = Assignable<DomainLabelPolicy, LabelPolicy>;
