/**
 * Turns a bearer token into an account. Lookups are cached briefly so the hot
 * path does not hit storage on every request; the TTL bounds how long a revoked
 * key keeps working (at most 5 s: docs/security.md, "Accounts and keys").
 */
import { unauthorized } from '../errors.js';
import type { AccountRepository } from '../storage/account-repository.js';
import { hashApiKey } from './api-key.js';

export interface Principal {
  accountId: string;
  keyId: string;
}

interface CacheEntry {
  principal: Principal;
  expiresAt: number;
}

const MAX_CACHED_KEYS = 10_000;

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly accounts: AccountRepository,
    private readonly cacheTtlMs = 2_000,
  ) {}

  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization === '') {
      throw unauthorized('missing Authorization header; send "Authorization: Bearer <your API key>"');
    }
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) {
      throw unauthorized('Authorization header must use the Bearer scheme: "Authorization: Bearer <your API key>"');
    }
    const hash = hashApiKey(match[1]);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.principal;

    const row = await this.accounts.findActiveKeyByHash(hash);
    if (!row) {
      this.cache.delete(hash);
      throw unauthorized('API key is not valid or has been revoked');
    }
    const principal = { accountId: row.account_id, keyId: row.id };
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
    this.cache.set(hash, { principal, expiresAt: now + this.cacheTtlMs });
    return principal;
  }
}
