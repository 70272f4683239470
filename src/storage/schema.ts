/** Table types: the single description of what the database holds. */
export interface AccountsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, enough to recognise it in `keys list`. */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface PersonasTable {
  id: string;
  account_id: string;
  name: string;
  /** JSON text exactly as serialized at write time, so key order and unicode round-trip. */
  attributes: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  /** Which operation the key was used for (`POST /v1/personas`…): a key is scoped to one. */
  operation: string;
  request_hash: string;
  /** Null while the first request is still running. */
  status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  personas: PersonasTable;
  idempotency_keys: IdempotencyKeysTable;
}
