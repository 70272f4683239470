import type { WireFormat } from './wire/wire-format.js';

/**
 * Everything that differs between two providers. The registry does the rest
 * (deadline, abort, retries, error mapping), so a provider file stays a few lines.
 */
export interface ProviderDefinition {
  /** How people name it (GET /v1/providers); an operator-declared provider goes by its id. */
  name?: string;
  /**
   * The public endpoint unless PROVIDER_BASE_URL_<ID> says otherwise. Always
   * explicit, so nothing in the environment (OPENAI_BASE_URL…) can redirect a caller's key.
   */
  defaultBaseUrl: string;
  /** A current, cheap, capable model; PROVIDER_MODEL_<ID> or the request's `model` overrides it. */
  defaultModel: string;
  /** The provider's HTTP protocol (wire/): request template and answer parse. */
  wire: WireFormat;
  /**
   * Some providers answer a bad key with a status other than 401/403 (Google and xAI use 400).
   * Receives the parsed error body (or undefined when it was not JSON).
   */
  rejectsKey?(status: number, errorBody: unknown): boolean;
}
