import { type Kysely, type Migration, sql } from 'kysely';

export const usageAndCache: Migration = {
  async up(db: Kysely<unknown>) {
    // One row per account × UTC day × provider × model; instances add to it with an upsert.
    await db.schema
      .createTable('usage_daily')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('refines', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cache_hits', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('provider_calls', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'day', 'provider', 'model'])
      .execute();

    // Secrets the service generates for itself (the cache's HMAC key), shared by every instance.
    await db.schema
      .createTable('service_secrets')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('service_secrets').execute();
    await db.schema.dropTable('usage_daily').execute();
  },
};
