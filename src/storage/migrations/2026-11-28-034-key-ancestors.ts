import type { Kysely, Migration } from 'kysely';

/**
 * Issue 34: a key created over HTTP spends against the limits of the key that
 * created it, and of that key's creators (docs/keys-and-scopes.md, "Budgets").
 * Limits never change after creation, so each key keeps its own copy of its
 * limited ancestors (JSON, nearest first); null for keys without one, as every
 * key made before this migration.
 */
export const keyAncestors: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').addColumn('limited_by', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').dropColumn('limited_by').execute();
  },
};
