/** Shared pieces for the provider tests: realistic caller keys and the checks every test repeats. */
import { expect } from 'vitest';
import { DomainError } from '../../src/errors.js';
import { type Conversation, type ProviderRegistry, type ProviderRegistryOptions, createProviderRegistry, singleTurn } from '../../src/providers/index.js';
import { SecretScrubber } from '../../src/providers/secret-scrubber.js';
import type { FakeProviderServer } from '../fakes/provider-server.js';

/** One operator-declared OpenAI-compatible provider stands in for Ollama, vLLM, LM Studio… */
export const OPERATOR_ID = 'ollama';
export const OPERATOR_MODEL = 'llama3.2:3b';

/**
 * Keys with the real prefixes, so the scrubber meets what providers really echo, and
 * obviously fake bodies, so no secret scanner mistakes them for leaked keys.
 */
export const callerKeys: Record<string, string> = {
  openai: 'sk-proj-Q3vT9xLm2RkP8wZc4YbN7uHs',
  anthropic: 'sk-ant-FAKE-test-key-a1b2',
  google: 'gk-FAKE-test-key-g1h2i3',
  mistral: 'q7Rt2Yu8Io3Pa9Sd4Fg1Hj6Kl5Zx0Cv',
  groq: 'gsk_T4yU8iO2pA6sD9fG3hJ7kL1zX5cV',
  deepseek: 'sk-FAKE-test-key-d4e5f6',
  xai: 'xai-Wq2Er4Ty6Ui8Op0As1Df3Gh5Jk7Lz',
  [OPERATOR_ID]: 'local-Mn3Bv5Cx7Zl9Kj4Hg',
};

export const builtInIds = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'deepseek', 'xai'] as const;
export const allIds = [...builtInIds, OPERATOR_ID];

export const keyFor = (id: string): string => callerKeys[id] ?? 'test-key-Zz9Yy8Xx7Ww6';

/** Every built-in provider and the operator one pointed at the fake. */
export function registryFor(fake: FakeProviderServer, options: ProviderRegistryOptions = {}): ProviderRegistry {
  const baseUrls = Object.fromEntries(allIds.map((id) => [id, fake.baseUrl(id)]));
  return createProviderRegistry({ baseUrls, models: { [OPERATOR_ID]: OPERATOR_MODEL } }, options);
}

export const PERSONA_SYSTEM = 'You are Captain Brevity. Rewrite the text in that voice.';

export const call = (id: string, extra: { model?: string; signal?: AbortSignal; conversation?: Conversation } = {}) => ({
  apiKey: keyFor(id),
  scrubber: new SecretScrubber([keyFor(id)]),
  conversation: singleTurn(PERSONA_SYSTEM, '<text>Our servers will be down for maintenance tonight.</text>'),
  ...extra,
});

export const within = (ms: number) => ({ deadline: Date.now() + ms });

/** The rejection of a promise, which must reject. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

export async function domainRejection(promise: Promise<unknown>): Promise<DomainError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

