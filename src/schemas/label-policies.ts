import { Type, type Static } from '@sinclair/typebox';
import type { LabelPolicy as DomainLabelPolicy, LabelPolicyChange } from '../personas/label-policies.js';
import type { Assignable } from './common.js';

const gate = (what: string) =>
  `Moving the label to version v needs a completed evaluation of v ${what} (docs/evaluations.md); null: no such bar`;

export const LabelPolicyBody = Type.Object(
  {
    protected: Type.Optional(
      Type.Boolean({ description: 'Moving or removing the label needs the scope `labels:protected`. Left out: the label keeps its current protection' }),
    ),
    minScore: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], { description: gate('whose summary score is at least this') })),
    minPassRate: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: gate('whose pass rate is at least this') })),
    maxAgeDays: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], { description: gate('finished at most this many days ago') })),
  },
  { additionalProperties: false },
);
export type LabelPolicyBody = Static<typeof LabelPolicyBody>;
export type LabelPolicyBodyIsTheDomains = Assignable<LabelPolicyBody, LabelPolicyChange>;

export const LabelPolicy = Type.Object(
  {
    label: Type.String(),
    protected: Type.Boolean(),
    minScore: Type.Union([Type.Integer(), Type.Null()], { description: gate('whose summary score is at least this') }),
    minPassRate: Type.Union([Type.Number(), Type.Null()], { description: gate('whose pass rate is at least this') }),
    maxAgeDays: Type.Union([Type.Integer(), Type.Null()], { description: gate('finished at most this many days ago') }),
    isDefault: Type.Boolean({ description: 'True when no policy was set: `production` is then protected, other labels are not' }),
  },
  { $id: 'LabelPolicy', additionalProperties: false },
);
export type LabelPolicy = Static<typeof LabelPolicy>;
export type LabelPolicyIsTheDomains = Assignable<DomainLabelPolicy, LabelPolicy>;

/** GET …/label-policies: apart from the labels themselves, so that GET …/labels stays a plain map of labels. */
export const LabelPolicyMap = Type.Record(Type.String(), Type.Ref('LabelPolicy'), {
  description:
    'Each label\'s policy, keyed by label, each as GET …/labels/{label}/policy answers it: every label set, every label that has a policy, ' +
    'and `production` (protected by default)',
});
