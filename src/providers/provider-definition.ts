import type { generateText, LanguageModel } from 'ai';

/** Where and as whom one call talks to a provider. */
export interface ProviderConnection {
  /** The caller's own key. Always passed explicitly: the SDKs would otherwise read OPENAI_API_KEY & co. */
  apiKey: string;
  /** Operator config or the provider's public URL, never from a request. */
  baseURL: string;
  /** Injected so tests and an operator-tuned dispatcher can replace the global fetch. */
  fetch?: typeof fetch;
}

export type ProviderOptions = Parameters<typeof generateText>[0]['providerOptions'];

/**
 * Everything that differs between two providers. The registry does the rest
 * (deadline, abort, retries, error mapping), so a provider file stays a few lines.
 */
export interface ProviderDefinition {
  /**
   * The public endpoint unless PROVIDER_BASE_URL_<ID> says otherwise. Passed to the SDK
   * even when it has the same default, so OPENAI_BASE_URL/ANTHROPIC_BASE_URL in the
   * environment can never redirect a caller's key.
   */
  defaultBaseUrl: string;
  /** A current, cheap, capable model; PROVIDER_MODEL_<ID> or the request's `model` overrides it. */
  defaultModel: string;
  /** The SDK model for one call. Built per call because the key belongs to the call. */
  languageModel(connection: ProviderConnection, modelId: string): LanguageModel;
  /** Sent with every call, e.g. to keep the caller's text out of the provider's storage. */
  providerOptions?: ProviderOptions;
  /**
   * Some providers answer a bad key with a status other than 401/403 (Google and xAI use 400).
   * Receives the parsed error body (or undefined when it was not JSON).
   */
  rejectsKey?(status: number, errorBody: unknown): boolean;
}
