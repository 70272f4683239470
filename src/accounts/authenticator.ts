/**
 * Turns a bearer token into an account. Lookups are cached briefly so the hot
 * path does not hit storage on every request; the TTL bounds how long a revoked
 * key keeps working (at most 5 s: docs/security.md, "Accounts and keys").
 */
import { type Clock, systemClock } from '../clock.js';
import { unauthorized } from '../errors.js';
import type { AccountRepository, ActiveKey } from '../storage/account-repository.js';
import { hashApiKey } from './api-key.js';
import { storedExpiry } from './expiry.js';
import { parseScopes, type ScopeGrant } from './scopes.js';

/** Per-key budgets (docs/keys-and-scopes.md, "Budgets"); null when the key has none. */
export interface KeyLimits {
  tokensPerDay: number | null;
  refinesPerMinute: number | null;
}

/** A key whose limits bound another's spending: the key that created it, or one above that. */
export interface LimitingKey {
  keyId: string;
  limits: KeyLimits;
}

export interface Principal {
  accountId: string;
  keyId: string;
  scopes: readonly ScopeGrant[];
  limits: KeyLimits;
  /** The keys above this one that have limits, nearest first: its refines spend against theirs too. */
  limitedBy: readonly LimitingKey[];
  /** When the key stops being accepted (ISO date-time), null when it does not expire. */
  expiresAt: string | null;
}

/** Called the first time an expired key is refused, to write `key.expired` once; settles when written (and reports its own failures: it never rejects). */
export type ExpiredKeyListener = (key: { accountId: string; keyId: string; requestId: string | undefined }) => Promise<void>;

function principalOf(row: ActiveKey): Principal {
  return {
    accountId: row.account_id,
    keyId: row.id,
    scopes: parseScopes(row.scopes),
    limits: {
      tokensPerDay: row.tokens_per_day === null ? null : Number(row.tokens_per_day),
      refinesPerMinute: row.refines_per_minute === null ? null : Number(row.refines_per_minute),
    },
    limitedBy: row.limited_by === null ? [] : (JSON.parse(row.limited_by) as LimitingKey[]),
    expiresAt: row.expires_at,
  };
}

interface CacheEntry {
  principal: Principal;
  expiresAt: number;
  /** When the key (or, after a rotation, this old secret) stops being accepted. */
  validUntil: number;
}

const MAX_CACHED_KEYS = 10_000;

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly accounts: AccountRepository,
    private readonly cacheTtlMs = 2_000,
    private readonly onExpired: ExpiredKeyListener = async () => {},
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Keys whose `key.expired` is being written: a refusal does not wait for that write, and a
   * second one meanwhile must not start another that could reach the row first with its own
   * request id. At most one entry per expired key, and only while its write is in flight.
   */
  private readonly recordingExpiry = new Set<string>();

  /** `requestId` is the refused request's, for the `key.expired` event. */
  async authenticate(authorization: string | undefined, requestId?: string): Promise<Principal> {
    if (authorization === undefined || authorization === '') {
      throw unauthorized('missing Authorization header; send "Authorization: Bearer <your API key>"');
    }
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) {
      throw unauthorized('Authorization header must use the Bearer scheme: "Authorization: Bearer <your API key>"');
    }
    const hash = hashApiKey(match[1]);
    const now = this.clock.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now && cached.validUntil > now) return cached.principal;

    const row = await this.accounts.findActiveKeyByHash(hash, new Date(now).toISOString());
    if (!row) {
      this.cache.delete(hash);
      throw unauthorized('API key is not valid or has been revoked');
    }
    const principal = principalOf(row);
    const expiry = row.expires_at === null ? null : storedExpiry(row.expires_at);
    if (expiry !== null && (expiry === undefined || expiry <= now)) {
      this.cache.delete(hash);
      if (row.expiry_recorded_at === null && !this.recordingExpiry.has(row.id)) {
        const keyId = row.id;
        this.recordingExpiry.add(keyId);
        void this.onExpired({ accountId: row.account_id, keyId, requestId }).finally(() => this.recordingExpiry.delete(keyId));
      }
      throw unauthorized(
        expiry === undefined
          ? 'API key has an expiry this service cannot read, so it counts as expired; ask for a new one'
          : `API key expired at ${row.expires_at}; ask for a new one`,
      );
    }
    const validUntil = Math.min(
      expiry ?? Infinity,
      row.matchedPrevious && row.previous_expires_at !== null ? Date.parse(row.previous_expires_at) : Infinity,
    );
    // A Map iterates in insertion order: when full, the oldest lookup goes, not every
    // tenant's (clearing all would let one tenant's many keys flush the others').
    this.cache.delete(hash);
    if (this.cache.size >= MAX_CACHED_KEYS) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(hash, { principal, expiresAt: now + this.cacheTtlMs, validUntil });
    return principal;
  }
}
