import type { Kysely, Migration } from 'kysely';

/**
 * Issue 34: a stored answer that depended on a scope beyond its route's (a protected label
 * moved or removed) names it, so a replay to a key without that scope is refused as the
 * request itself would be. Null for every answer stored before, as for most answers.
 */
export const idempotencyScopes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('idempotency_keys').addColumn('required_scope', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('idempotency_keys').dropColumn('required_scope').execute();
  },
};
