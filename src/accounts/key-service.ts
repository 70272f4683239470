/**
 * Keys managed over HTTP by a key with `keys:admin` (docs/keys-and-scopes.md, "Keys over HTTP").
 * A secret exists outside the caller's hands only in the creation and rotation answers.
 */
import { DomainError, invalidRequest, lacksScope, notFound } from '../errors.js';
import { uuidv7 } from '../ids.js';
import type { AccountRepository, ApiKeyRow } from '../storage/account-repository.js';
import type { Actor } from '../storage/change-log.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.js';
import { hasExpired, parseExpiresAt, storedExpiry } from './expiry.js';
import type { KeyLimits, Principal } from './authenticator.js';
import { firstMissing, hasScope, parseScopes, type ScopeGrant } from './scopes.js';

/** A key as its account sees it: never its secret or hash (GET /v1/keys answers it). */
export interface KeyRecord {
  id: string;
  name: string;
  scopes: ScopeGrant[];
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  limits: KeyLimits;
  /** After a rotation with a grace: until when the previous secret is still accepted. */
  previousSecretExpiresAt: string | null;
}

/** A key with its secret: only as it is created or rotated. */
export interface KeyWithSecret extends KeyRecord {
  secret: string;
}

/** What a new key is asked to be. */
export interface NewKey {
  name: string;
  scopes: ScopeGrant[];
  expiresAt?: string;
  limits?: { tokensPerDay?: number | null; refinesPerMinute?: number | null };
}

/** Live (unrevoked, unexpired) keys an account may have (docs/keys-and-scopes.md, "Keys over HTTP"). */
export const MAX_LIVE_KEYS_PER_ACCOUNT = 100;

const keyNotFound = (id: string) => notFound(`key "${id}" not found`);
const forbidden = (message: string) => new DomainError('forbidden', message);

/**
 * A key cannot hand out a secret (by creating or rotating a key) that outlives it or may
 * spend more than it may: a 403 naming the first field looser than the calling key's own.
 */
function checkWithinCaller(principal: Principal, expiresAt: string | null, limits: NewKey['limits']): void {
  if (principal.expiresAt !== null && (expiresAt === null || Date.parse(expiresAt) > Date.parse(principal.expiresAt))) {
    throw forbidden(`this key expires at ${principal.expiresAt}; a key it creates or rotates must have an expiresAt no later than that`);
  }
  for (const name of ['tokensPerDay', 'refinesPerMinute'] as const) {
    const own = principal.limits[name];
    const wanted = limits?.[name] ?? null;
    if (own !== null && (wanted === null || wanted > own)) {
      throw forbidden(`this key has limits.${name} = ${own}; a key it creates or rotates must have a ${name} limit of at most that`);
    }
  }
}

/**
 * What bounds a key's spending besides its own limits: the creating key's limits, and whatever
 * bounds that key (docs/keys-and-scopes.md, "Budgets"). Limits never change once a key exists,
 * so the chain is copied into the new key rather than walked on every request.
 */
function limitedByOf(creator: Principal): string | null {
  const own = creator.limits.tokensPerDay !== null || creator.limits.refinesPerMinute !== null;
  const chain = [...(own ? [{ keyId: creator.keyId, limits: creator.limits }] : []), ...creator.limitedBy];
  return chain.length === 0 ? null : JSON.stringify(chain);
}

export function toKeyRecord(row: ApiKeyRow, now = new Date()): KeyRecord {
  const graceEnds = row.previous_expires_at !== null && Date.parse(row.previous_expires_at) > now.getTime() ? row.previous_expires_at : null;
  return {
    id: row.id,
    name: row.name,
    scopes: parseScopes(row.scopes),
    prefix: row.prefix,
    createdAt: row.created_at,
    // One the service cannot present counts as past: shown as expired when the key was made.
    expiresAt: row.expires_at === null || storedExpiry(row.expires_at) !== undefined ? row.expires_at : row.created_at,
    limits: {
      tokensPerDay: row.tokens_per_day === null ? null : Number(row.tokens_per_day),
      refinesPerMinute: row.refines_per_minute,
    },
    previousSecretExpiresAt: graceEnds,
  };
}

const canAdmin = (row: ApiKeyRow) => hasScope(parseScopes(row.scopes), 'keys:admin');

/**
 * Whether revoking `target` would leave the account unable to manage its keys. Admin keys
 * that expire do not count for a key that does not: the last such key could otherwise go
 * while the only other admin key expires a moment later. An expiring admin key may go while
 * another unexpired admin key stays (an account the admin CLI left with expiring ones only).
 */
function isLastAdmin(target: ApiKeyRow, others: ApiKeyRow[], now: number): boolean {
  if (!canAdmin(target)) return false;
  const admins = others.filter(canAdmin);
  if (target.expires_at === null) return !admins.some((key) => key.expires_at === null);
  return !admins.some((key) => !hasExpired(key.expires_at, now));
}

/** Printable, without control characters: a name shows up in the studio and the CLI. */
const NAME_SHAPE = /^[^\p{Cc}\p{Cf}]+$/u;

export class KeyService {
  constructor(private readonly accounts: AccountRepository) {}

  async create(principal: Principal, actor: Actor, body: NewKey): Promise<KeyWithSecret> {
    if (!NAME_SHAPE.test(body.name) || body.name.trim() === '') throw invalidRequest('name must be printable text (no control characters), not only spaces');
    const missing = firstMissing(principal.scopes, body.scopes);
    if (missing !== undefined) throw lacksScope(missing);
    const now = new Date();
    let expiresAt: string | null = null;
    if (body.expiresAt !== undefined) {
      const time = parseExpiresAt(body.expiresAt);
      if (time <= now.getTime()) throw invalidRequest('expiresAt must be in the future');
      expiresAt = new Date(time).toISOString();
    }
    checkWithinCaller(principal, expiresAt, body.limits);
    const secret = generateApiKey();
    const row: ApiKeyRow = {
      id: `key_${uuidv7()}`,
      account_id: principal.accountId,
      key_hash: hashApiKey(secret),
      prefix: displayPrefix(secret),
      created_at: now.toISOString(),
      revoked_at: null,
      name: body.name,
      scopes: JSON.stringify(body.scopes),
      expires_at: expiresAt,
      tokens_per_day: body.limits?.tokensPerDay ?? null,
      refines_per_minute: body.limits?.refinesPerMinute ?? null,
      limited_by: limitedByOf(principal),
      previous_key_hash: null,
      previous_expires_at: null,
      expiry_recorded_at: null,
    };
    const inserted = await this.accounts.insertKeyWithinCap(row, MAX_LIVE_KEYS_PER_ACCOUNT, {
      author: { ...actor, at: row.created_at },
      entry: { action: 'key.created', keyId: row.id },
    });
    if (!inserted) {
      throw new DomainError(
        'conflict',
        `this account already has ${MAX_LIVE_KEYS_PER_ACCOUNT} live keys (unrevoked and unexpired), the most it may have; revoke one before creating another`,
      );
    }
    return { ...toKeyRecord(row, now), secret };
  }

  async list(accountId: string): Promise<KeyRecord[]> {
    const now = new Date();
    return (await this.accounts.listAccountKeys(accountId)).map((row) => toKeyRecord(row, now));
  }

  async get(accountId: string, id: string): Promise<KeyRecord> {
    const row = await this.accounts.findAccountKey(accountId, id);
    if (!row) throw keyNotFound(id);
    return toKeyRecord(row);
  }

  /**
   * Refused (409) for the account's last key with `keys:admin` (or `*`) that does not expire,
   * or, for an expiring one, its last unexpired admin key; and (403 naming the scope, as for
   * rotate) for a key with a scope the caller lacks.
   */
  async revoke(principal: Principal, actor: Actor, id: string): Promise<void> {
    const existing = await this.accounts.findAccountKey(principal.accountId, id);
    if (!existing) throw keyNotFound(id);
    const missing = firstMissing(principal.scopes, parseScopes(existing.scopes));
    if (missing !== undefined) throw lacksScope(missing);
    const now = new Date();
    const outcome = await this.accounts.revokeAccountKey({ ...actor, at: now.toISOString() }, id, (target, others) => isLastAdmin(target, others, now.getTime()));
    if (outcome === 'not_found') throw keyNotFound(id);
    if (outcome === 'last_admin') {
      throw new DomainError(
        'conflict',
        existing.expires_at === null
          ? `key "${id}" is the account's last key with the scope "keys:admin" that does not expire; create another one without expiresAt before deleting it`
          : `key "${id}" is the account's last key with the scope "keys:admin"; create another one before deleting it`,
      );
    }
  }

  /**
   * A new secret for the same key (same id, scopes, limits and budget). A key
   * cannot hand out a secret for more than it may do itself: rotating a key
   * with a scope the caller lacks is a 403 naming that scope.
   */
  async rotate(principal: Principal, actor: Actor, id: string, graceSeconds = 0): Promise<KeyWithSecret> {
    const existing = await this.accounts.findAccountKey(principal.accountId, id);
    if (!existing) throw keyNotFound(id);
    const missing = firstMissing(principal.scopes, parseScopes(existing.scopes));
    if (missing !== undefined) throw lacksScope(missing);
    const current = toKeyRecord(existing);
    checkWithinCaller(principal, current.expiresAt, current.limits);
    const now = new Date();
    const secret = generateApiKey();
    const graceEnds = new Date(now.getTime() + graceSeconds * 1000).toISOString();
    const row = await this.accounts.rotateKey(
      { ...actor, at: now.toISOString() },
      id,
      hashApiKey(secret),
      displayPrefix(secret),
      graceEnds,
      graceSeconds,
    );
    if (!row) throw keyNotFound(id);
    return { ...toKeyRecord(row, now), secret };
  }
}
