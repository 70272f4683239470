import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Issue 27: keys a team can hand out. Existing keys get every scope (`*`) and
 * no limits, so nothing that worked before stops working. A rotated key keeps
 * its id; its previous hash is accepted until `previous_expires_at`.
 * Usage by key goes to its own table (the account's daily table keeps its key),
 * seeded with the existing rows under key '' ("before keys were tracked").
 * Label policies: existing personas' `production` gets an explicit unprotected
 * row, so only personas created from now on start with `production` protected.
 */
export const keysAndScopes: Migration = {
  async up(db: Kysely<unknown>) {
    const keys = () => db.schema.alterTable('api_keys');
    await keys().addColumn('name', 'text', (c) => c.notNull().defaultTo('')).execute();
    await keys().addColumn('scopes', 'text', (c) => c.notNull().defaultTo('["*"]')).execute();
    await keys().addColumn('expires_at', 'text').execute();
    await keys().addColumn('tokens_per_day', 'bigint').execute();
    await keys().addColumn('refines_per_minute', 'integer').execute();
    await keys().addColumn('previous_key_hash', 'text').execute();
    await keys().addColumn('previous_expires_at', 'text').execute();
    await keys().addColumn('expiry_recorded_at', 'text').execute();
    await db.schema.createIndex('api_keys_previous_key_hash').on('api_keys').column('previous_key_hash').execute();
    await db.schema.createIndex('api_keys_account_id').on('api_keys').column('account_id').execute();

    // Key events have no persona: '' there (the column stays NOT NULL on both engines), answered as null.
    await db.schema.alterTable('audit_events').addColumn('key_id', 'text').execute();
    // budget.exceeded: which limit; key.rotated: the grace in seconds.
    await db.schema.alterTable('audit_events').addColumn('detail', 'text').execute();

    await db.schema
      .createTable('usage_daily_keys')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('refines', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cache_hits', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('provider_calls', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('usage_daily_keys_pk', ['account_id', 'day', 'provider', 'model', 'key_id'])
      .execute();
    await sql`
      insert into usage_daily_keys (account_id, day, provider, model, key_id, refines, failures, cache_hits, provider_calls, input_tokens, output_tokens)
      select account_id, day, provider, model, '', refines, failures, cache_hits, provider_calls, input_tokens, output_tokens from usage_daily
    `.execute(db);

    await db.schema
      .createTable('label_policies')
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('protected', 'integer', (c) => c.notNull())
      .addColumn('min_score', 'integer')
      .addColumn('min_pass_rate', 'real')
      .addColumn('max_age_days', 'integer')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('label_policies_pk', ['persona_id', 'label'])
      .execute();
    await sql`
      insert into label_policies (persona_id, label, protected, updated_at)
      select id, 'production', 0, updated_at from personas
    `.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('label_policies').execute();
    await db.schema.dropTable('usage_daily_keys').execute();
    await db.schema.alterTable('audit_events').dropColumn('detail').execute();
    await db.schema.alterTable('audit_events').dropColumn('key_id').execute();
    await db.schema.dropIndex('api_keys_account_id').execute();
    await db.schema.dropIndex('api_keys_previous_key_hash').execute();
    for (const column of ['expiry_recorded_at', 'previous_expires_at', 'previous_key_hash', 'refines_per_minute', 'tokens_per_day', 'expires_at', 'scopes', 'name']) {
      await db.schema.alterTable('api_keys').dropColumn(column).execute();
    }
  },
};
