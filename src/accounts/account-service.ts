/** Accounts and keys: used by the server's first start and by the admin CLI. */
import { uuidv7 } from '../ids.js';
import { DomainError, invalidRequest, notFound } from '../errors.js';
import type { AccountRepository, ApiKeyListing, NewApiKey } from '../storage/account-repository.js';
import { ALL_SCOPES, SCOPE_GRANTS } from './scopes.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.js';

export const DEFAULT_ACCOUNT = 'default';
const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface IssuedKey {
  keyId: string;
  accountName: string;
  /** The only time the full key exists outside the caller's hands. */
  key: string;
}

export class AccountService {
  constructor(private readonly accounts: AccountRepository) {}

  private keyRow(accountId: string, key: string, options: { name?: string; scopes?: string[] } = {}): NewApiKey & { id: string } {
    return {
      id: `key_${uuidv7()}`,
      account_id: accountId,
      key_hash: hashApiKey(key),
      prefix: displayPrefix(key),
      created_at: new Date().toISOString(),
      revoked_at: null,
      name: options.name ?? '',
      // Keys made by the operator (bootstrap, admin CLI) without scopes can do everything.
      scopes: JSON.stringify(options.scopes?.length ? options.scopes : [ALL_SCOPES]),
    };
  }

  async createAccount(name: string, key: string = generateApiKey()): Promise<IssuedKey> {
    if (!ACCOUNT_NAME.test(name)) {
      throw invalidRequest('account name must be 1-64 characters of letters, digits, ".", "_" or "-"');
    }
    if (await this.accounts.findAccountByName(name)) {
      throw new DomainError('conflict', `account "${name}" already exists`);
    }
    const account = { id: uuidv7(), name, created_at: new Date().toISOString() };
    const row = this.keyRow(account.id, key);
    await this.accounts.insertAccountWithKey(account, row);
    return { keyId: row.id, accountName: name, key };
  }

  async createKey(accountName: string, options: { name?: string; scopes?: string[] } = {}): Promise<IssuedKey> {
    const account = await this.accounts.findAccountByName(accountName);
    if (!account) throw notFound(`account "${accountName}" does not exist`);
    if (options.scopes !== undefined && options.scopes.length === 0) throw invalidRequest('scopes must name at least one scope; leave them out for every scope (*)');
    const unknown = options.scopes?.find((scope) => !(SCOPE_GRANTS as readonly string[]).includes(scope));
    if (unknown !== undefined) throw invalidRequest(`unknown scope "${unknown}"; scopes are ${SCOPE_GRANTS.join(', ')}`);
    const key = generateApiKey();
    const row = this.keyRow(account.id, key, options);
    await this.accounts.insertKey(row);
    return { keyId: row.id, accountName, key };
  }

  listKeys(): Promise<ApiKeyListing[]> {
    return this.accounts.listKeys();
  }

  async revokeKey(keyId: string): Promise<void> {
    if (!(await this.accounts.revokeKey(keyId, new Date().toISOString()))) {
      throw notFound(`key "${keyId}" does not exist`);
    }
  }

  /**
   * First start with an empty store: create the `default` account. Returns the
   * issued key when one was generated (so the caller can print it once), or
   * undefined when the store was not empty or the key came from the operator.
   * Several instances may start at once; the unique account name decides.
   */
  async bootstrap(operatorKey: string | undefined): Promise<IssuedKey | undefined> {
    if (await this.accounts.hasAnyAccount()) return undefined;
    try {
      const issued = await this.createAccount(DEFAULT_ACCOUNT, operatorKey ?? generateApiKey());
      return operatorKey === undefined ? issued : undefined;
    } catch (error) {
      if (await this.accounts.findAccountByName(DEFAULT_ACCOUNT)) return undefined;
      throw error;
    }
  }
}
