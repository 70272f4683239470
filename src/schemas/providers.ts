import { Type, type Static } from '@sinclair/typebox';
import type { ProviderInfo as DomainProviderInfo } from '../providers/provider-info.js';
import type { Assignable } from './common.js';

export const ProviderInfo = Type.Object(
  {
    id: Type.String({ description: 'What to send as `provider` in a refine', examples: ['openai'] }),
    name: Type.String({ description: 'How people name it; an operator-declared provider goes by its id', examples: ['OpenAI'] }),
    defaultModel: Type.Union([Type.String(), Type.Null()], {
      description: "The model a refine uses when it names none; null for `rules`, which calls no model",
      examples: ['gpt-5.4-mini'],
    }),
    requiresKey: Type.Boolean({ description: 'Whether a refine through it needs `providerApiKey` (every provider except `rules`)' }),
  },
  { additionalProperties: false },
);
export type ProviderInfo = Static<typeof ProviderInfo>;
export type ProviderInfoIsTheDomains = Assignable<DomainProviderInfo, ProviderInfo>;

export const ProviderList = Type.Array(ProviderInfo);
