/** Accounts and their API keys. Keys are held only as SHA-256 hashes. */
import type { Kysely, Selectable } from 'kysely';
import { precompiled } from './precompiled.js';
import type { AccountsTable, ApiKeysTable, Database } from './schema.js';

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type ApiKeyListing = ApiKeyRow & { account_name: string };

export class AccountRepository {
  private readonly selectActiveKey;

  constructor(private readonly db: Kysely<Database>) {
    this.selectActiveKey = precompiled(
      db.selectFrom('api_keys').select(['id', 'account_id']).where('key_hash', '=', '').where('revoked_at', 'is', null),
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
  async insertAccountWithKey(account: AccountRow, key: ApiKeyRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('accounts').values(account).execute();
      await trx.insertInto('api_keys').values(key).execute();
    });
  }

  async insertKey(key: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(key).execute();
  }

  async findActiveKeyByHash(keyHash: string): Promise<Pick<ApiKeyRow, 'id' | 'account_id'> | undefined> {
    return (await this.selectActiveKey(this.db, keyHash)).rows[0];
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
