import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Immutable persona versions, movable labels and the audit trail. Each
 * existing persona's current state becomes its version (the number its ETag
 * already carries); earlier states were never recorded, so history starts there.
 */
export const personaHistory: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('persona_versions')
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('attributes', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .addPrimaryKeyConstraint('persona_versions_pk', ['persona_id', 'version'])
      .execute();

    await db.schema
      .createTable('persona_labels')
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('persona_labels_pk', ['persona_id', 'label'])
      .execute();

    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer')
      .addColumn('from_version', 'integer')
      .addColumn('label', 'text')
      .addColumn('actor', 'text')
      .addColumn('request_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // Newest first per account, optionally per persona: keyset paging on the time-ordered id.
    await db.schema.createIndex('audit_events_account_id').on('audit_events').columns(['account_id', 'id']).execute();
    await db.schema
      .createIndex('audit_events_account_persona_id')
      .on('audit_events')
      .columns(['account_id', 'persona_id', 'id'])
      .execute();

    await sql`
      insert into persona_versions (persona_id, version, account_id, name, attributes, created_at, created_by)
      select id, version, account_id, name, attributes, updated_at, null from personas
    `.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('audit_events').execute();
    await db.schema.dropTable('persona_labels').execute();
    await db.schema.dropTable('persona_versions').execute();
  },
};
