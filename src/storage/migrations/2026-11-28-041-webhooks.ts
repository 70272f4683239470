import { type Kysely, type Migration } from 'kysely';

/**
 * Webhooks (docs/webhooks.md): the endpoints, the outbox of events written in the same
 * transaction as their change, and one delivery row per event and subscribed endpoint,
 * which the instances claim with a lease.
 */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('disabled', 'integer', (c) => c.notNull())
      // Sealed (AES-256-GCM under a service secret), never the secret itself.
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_expires_at', 'text')
      // The first failure since the last success: five days of them disable the endpoint.
      .addColumn('failing_since', 'text')
      .execute();
    await db.schema.createIndex('webhook_endpoints_account').on('webhook_endpoints').columns(['account_id', 'id']).execute();

    await db.schema
      .createTable('webhook_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      // The exact body every attempt sends (and signs).
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      // Events that must happen once (a budget threshold per key and day) carry a key that says so.
      .addColumn('once_key', 'text', (c) => c.unique())
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('lease_owner', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
    // A claim's look for one endpoint's due deliveries.
    await db.schema.createIndex('webhook_deliveries_endpoint_due').on('webhook_deliveries').columns(['endpoint_id', 'status', 'next_attempt_at']).execute();
    await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('webhook_deliveries').execute();
    await db.schema.dropTable('webhook_events').execute();
    await db.schema.dropTable('webhook_endpoints').execute();
  },
};
