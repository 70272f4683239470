/**
 * The account's API keys: /v1/keys (scope `keys:admin`). A secret is returned by `create`
 * and `rotate` only, once: store it then. Those two calls are never retried, since the service
 * keeps no copy of an answer that holds a secret (a retry would make a second key, or rotate twice).
 */
import type { CallOptions } from './transport.js';
import type { Transport } from './transport.js';
import type { ApiKey, CreateKeyInput, CurrentKey, IssuedApiKey } from './types.js';

const pathOf = (id: string) => `/keys/${encodeURIComponent(id)}`;

export class Keys {
  constructor(private readonly transport: Transport) {}

  /** A new key with at most the scopes of the key making the call; its `secret` is in this answer only. */
  async create(input: CreateKeyInput, options: CallOptions = {}): Promise<IssuedApiKey> {
    return (await this.transport.call<IssuedApiKey>({ method: 'POST', path: '/keys', body: input }, { ...options, maxRetries: 0 })).body;
  }

  /** The account's keys, oldest first; never a secret. */
  async list(options?: CallOptions): Promise<ApiKey[]> {
    return (await this.transport.call<ApiKey[]>({ method: 'GET', path: '/keys', answer: 'array' }, options)).body;
  }

  async get(id: string, options?: CallOptions): Promise<ApiKey> {
    return (await this.transport.call<ApiKey>({ method: 'GET', path: pathOf(id) }, options)).body;
  }

  /** The key this client uses: its id, scopes and limits (any key may ask). */
  async current(options?: CallOptions): Promise<CurrentKey> {
    return (await this.transport.call<CurrentKey>({ method: 'GET', path: '/keys/current' }, options)).body;
  }

  /** Revokes the key; every instance refuses it within 5 s. */
  async revoke(id: string, options?: CallOptions): Promise<void> {
    await this.transport.call<undefined>({ method: 'DELETE', path: pathOf(id), answer: 'none' }, options);
  }

  /** A new secret for the key (same id, scopes, limits); the old one keeps working for `graceSeconds` (default 0). */
  async rotate(id: string, input: { graceSeconds?: number } = {}, options: CallOptions = {}): Promise<IssuedApiKey> {
    return (await this.transport.call<IssuedApiKey>({ method: 'POST', path: `${pathOf(id)}/rotate`, body: input }, { ...options, maxRetries: 0 })).body;
  }
}
