/** A test server wired to one fake provider server that impersonates every provider. */
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import type { StorageTarget } from './storage-targets.js';
import { startTestServer, type TestServer } from './test-server.js';

export const BUILT_IN_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'deepseek', 'xai'] as const;
/** An operator-declared OpenAI-compatible provider (like a local Ollama). */
export const OPERATOR_PROVIDER = 'localllm';
export const ALL_PROVIDERS = [...BUILT_IN_PROVIDERS, OPERATOR_PROVIDER];

/** The server must never fall back to these: the caller's key or nothing. */
export const DECOY_ENV_KEYS: Record<string, string> = {
  OPENAI_API_KEY: 'decoy-env-openai-key',
  ANTHROPIC_API_KEY: 'decoy-env-anthropic-key',
  GOOGLE_GENERATIVE_AI_API_KEY: 'decoy-env-google-key',
  MISTRAL_API_KEY: 'decoy-env-mistral-key',
  GROQ_API_KEY: 'decoy-env-groq-key',
  DEEPSEEK_API_KEY: 'decoy-env-deepseek-key',
  XAI_API_KEY: 'decoy-env-xai-key',
};

/** A distinctive key per provider, so any echo of it anywhere can be found. */
export const callerKey = (provider: string) => `Qz7Hq2Zx9Lm4Vb8Nc1Pw${ALL_PROVIDERS.indexOf(provider)}Rt5Ys3`;

export interface RefineFixture {
  server: TestServer;
  fake: FakeProviderServer;
  close(): Promise<void>;
}

/** The environment that points every provider at `fake`. */
export function refineEnv(fake: FakeProviderServer, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PROVIDER_TIMEOUT_MS: '1500',
    [`PROVIDER_BASE_URL_${OPERATOR_PROVIDER.toUpperCase()}`]: fake.baseUrl(OPERATOR_PROVIDER),
    [`PROVIDER_MODEL_${OPERATOR_PROVIDER.toUpperCase()}`]: 'llama3.2',
    ...extra,
  };
  for (const id of BUILT_IN_PROVIDERS) env[`PROVIDER_BASE_URL_${id.toUpperCase()}`] = fake.baseUrl(id);
  return env;
}

export async function startRefineFixture(
  options: { target?: StorageTarget; env?: Record<string, string>; latencyMs?: number; record?: boolean } = {},
): Promise<RefineFixture> {
  Object.assign(process.env, DECOY_ENV_KEYS);
  const fake = await startFakeProviderServer({ latencyMs: options.latencyMs, record: options.record });
  const server = await startTestServer({ target: options.target, env: refineEnv(fake, options.env) });
  return {
    server,
    fake,
    async close() {
      await server.close();
      await fake.close();
    },
  };
}
