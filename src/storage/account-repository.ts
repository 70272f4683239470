/** Accounts and their API keys. Keys are held only as SHA-256 hashes. */
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import { type ChangeAuthor, type AuditEntry, recordEvent } from './change-log.js';
import { recordWebhookEvent } from './webhook-outbox.js';
import { precompiled } from './precompiled.js';
import type { AccountsTable, ApiKeysTable, Database } from './schema.js';

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type ApiKeyListing = ApiKeyRow & { account_name: string };

/** What authentication needs of a key: never its hash. */
export type ActiveKey = Pick<
  ApiKeyRow,
  'id' | 'account_id' | 'scopes' | 'expires_at' | 'tokens_per_day' | 'refines_per_minute' | 'previous_expires_at' | 'expiry_recorded_at' | 'limited_by'
>;
const ACTIVE_KEY_COLUMNS = [
  'id', 'account_id', 'scopes', 'expires_at', 'tokens_per_day', 'refines_per_minute', 'previous_expires_at', 'expiry_recorded_at', 'limited_by',
] as const;

export class AccountRepository {
  private readonly selectActiveKey;

  constructor(private readonly db: Kysely<Database>) {
    this.selectActiveKey = precompiled(
      db.selectFrom('api_keys').select(ACTIVE_KEY_COLUMNS).where('key_hash', '=', '').where('revoked_at', 'is', null),
      1,
    );
  }

  async hasAnyAccount(): Promise<boolean> {
    return (await this.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  findAccountByName(name: string): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
  }

  /** Account and first key in one transaction: an account never exists without a way in. */
  async insertAccountWithKey(account: AccountRow, key: NewApiKey): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('accounts').values(account).execute();
      await trx.insertInto('api_keys').values(key).execute();
    });
  }

  async insertKey(key: NewApiKey, event?: { author: ChangeAuthor; entry: AuditEntry }): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('api_keys').values(key).execute();
      if (event) {
        await recordEvent(trx, event.author, event.entry);
        await recordKeyEvent(trx, 'key.created', event.author, { id: key.id, name: key.name ?? '' });
      }
    });
  }

  /**
   * Inserts the key unless its account already has `maxLive` live (unrevoked,
   * unexpired) keys; false then. The account row is locked first, so concurrent
   * creations cannot both pass the count.
   */
  async insertKeyWithinCap(key: ApiKeyRow, maxLive: number, event: { author: ChangeAuthor; entry: AuditEntry }): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set((eb) => ({ name: eb.ref('name') })).where('id', '=', key.account_id).execute();
      const { live } = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<string | number>().as('live'))
        .where('account_id', '=', key.account_id)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', event.author.at)]))
        .executeTakeFirstOrThrow();
      if (Number(live) >= maxLive) return false;
      await trx.insertInto('api_keys').values(key as never).execute();
      await recordEvent(trx, event.author, event.entry);
      await recordKeyEvent(trx, 'key.created', event.author, key);
      return true;
    });
  }

  /**
   * The unrevoked key with this hash as its current secret, or as its previous
   * secret within a rotation's grace (`matchedPrevious`). Expiry is the caller's to judge.
   */
  async findActiveKeyByHash(keyHash: string, now: string): Promise<(ActiveKey & { matchedPrevious: boolean }) | undefined> {
    const current = (await this.selectActiveKey(this.db, keyHash)).rows[0];
    if (current) return { ...current, matchedPrevious: false };
    const previous = await this.db
      .selectFrom('api_keys')
      .select(ACTIVE_KEY_COLUMNS)
      .where('previous_key_hash', '=', keyHash)
      .where('previous_expires_at', '>', now)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return previous ? { ...previous, matchedPrevious: true } : undefined;
  }

  /** The account's unrevoked keys, oldest first. */
  listAccountKeys(accountId: string): Promise<ApiKeyRow[]> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  findAccountKey(accountId: string, id: string): Promise<ApiKeyRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /**
   * Revokes an account's key unless `isLastAdmin(target, others)` says the account must keep
   * it to manage its keys (the rule is the caller's; `others` are the account's other
   * unrevoked keys). The account row is locked first so two revocations of the last two
   * admin keys queue up.
   */
  async revokeAccountKey(
    author: ChangeAuthor,
    id: string,
    isLastAdmin: (target: ApiKeyRow, others: ApiKeyRow[]) => boolean,
  ): Promise<'revoked' | 'not_found' | 'last_admin'> {
    return this.db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set((eb) => ({ name: eb.ref('name') })).where('id', '=', author.accountId).execute();
      const keys = await trx.selectFrom('api_keys').selectAll().where('account_id', '=', author.accountId).where('revoked_at', 'is', null).execute();
      const target = keys.find((k) => k.id === id);
      if (!target) return 'not_found';
      if (isLastAdmin(target, keys.filter((k) => k.id !== id))) return 'last_admin';
      await trx.updateTable('api_keys').set({ revoked_at: author.at }).where('id', '=', id).execute();
      await recordEvent(trx, author, { action: 'key.revoked', keyId: id });
      await recordKeyEvent(trx, 'key.revoked', author, target);
      return 'revoked';
    });
  }

  /** A new secret for the key; the old one is accepted until `previousExpiresAt` (a previous grace is replaced). */
  async rotateKey(author: ChangeAuthor, id: string, keyHash: string, prefix: string, previousExpiresAt: string, graceSeconds: number): Promise<ApiKeyRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('api_keys')
        .set((eb) => ({ previous_key_hash: eb.ref('key_hash'), previous_expires_at: previousExpiresAt, key_hash: keyHash, prefix }))
        .where('account_id', '=', author.accountId)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      await recordEvent(trx, author, { action: 'key.rotated', keyId: id, detail: `graceSeconds=${graceSeconds}` });
      return row;
    });
  }

  /** Writes `key.expired` once per key: true when this call recorded it. */
  async recordExpiry(author: ChangeAuthor, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('api_keys')
        .set({ expiry_recorded_at: author.at })
        .where('id', '=', id)
        .where('expiry_recorded_at', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return false;
      await recordEvent(trx, author, { action: 'key.expired', keyId: id });
      return true;
    });
  }

  /** Audit events that are not part of another write (budget.exceeded). */
  async recordEvent(author: ChangeAuthor, entry: AuditEntry): Promise<void> {
    await recordEvent(this.db, author, entry);
  }

  listKeys(): Promise<ApiKeyListing[]> {
    return this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .selectAll('api_keys')
      .select('accounts.name as account_name')
      .orderBy('accounts.name')
      .orderBy('api_keys.created_at')
      .execute();
  }

  /** Returns false when no such key exists. Revoking twice keeps the first revocation time. */
  async revokeKey(id: string, revokedAt: string): Promise<boolean> {
    const found = await this.db.selectFrom('api_keys').select('revoked_at').where('id', '=', id).executeTakeFirst();
    if (!found) return false;
    if (found.revoked_at === null) {
      await this.db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', id).execute();
    }
    return true;
  }
}

/** key.created and key.revoked, for the account's webhooks: the key's id and name, never its secret or hash. */
async function recordKeyEvent(trx: Transaction<Database>, type: 'key.created' | 'key.revoked', author: ChangeAuthor, key: { id: string; name: string }): Promise<void> {
  await recordWebhookEvent(trx, { accountId: author.accountId, at: author.at, event: { type, data: { keyId: key.id, name: key.name, by: author.keyId } } });
}
