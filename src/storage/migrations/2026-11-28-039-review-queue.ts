import { type Kysely, type Migration } from 'kysely';

/**
 * The review queue (docs/quality.md, "The review queue"): each persona's retention policy and
 * the answers it keeps, with their text. Opt-in per persona; nothing is kept without a policy.
 */
export const reviewQueue: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('review_policies')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('keep', 'text', (c) => c.notNull())
      .addColumn('days', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('review_policies_pk', ['account_id', 'persona_id'])
      .execute();

    await db.schema
      .createTable('reviews')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('response', 'text', (c) => c.notNull())
      .addColumn('score', 'integer', (c) => c.notNull())
      .addColumn('violations', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('sample_id', 'text')
      .addUniqueConstraint('reviews_request_unique', ['account_id', 'request_id'])
      .execute();
    await db.schema.createIndex('reviews_persona').on('reviews').columns(['account_id', 'persona_id', 'id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('reviews').execute();
    await db.schema.dropTable('review_policies').execute();
  },
};
