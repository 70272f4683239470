import type { Kysely, Migration } from 'kysely';

/**
 * Issue 26: evaluation sets and runs (docs/evaluations.md). A persona's samples
 * are one row holding the whole set as JSON text, replaced whole by a PUT under
 * its own version (the samples' ETag). A run and its results live here, so any
 * instance answers for a run another one executes; no provider or judge key is
 * ever a column.
 */
export const evaluations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('eval_sample_sets')
      .addColumn('persona_id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('samples', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('eval_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('model', 'text')
      .addColumn('judge', 'text')
      .addColumn('concurrency', 'integer', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('owner', 'text')
      .addColumn('heartbeat_at', 'text')
      .execute();
    await db.schema.createIndex('eval_runs_persona').on('eval_runs').columns(['account_id', 'persona_id', 'id']).execute();
    await db.schema.createIndex('eval_runs_gate').on('eval_runs').columns(['persona_id', 'version', 'status']).execute();
    await db.schema.createIndex('eval_runs_active').on('eval_runs').columns(['status', 'heartbeat_at']).execute();

    await db.schema
      .createTable('eval_results')
      .addColumn('eval_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('sample_id', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('result', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('eval_results_pk', ['eval_id', 'seq'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('eval_results').execute();
    await db.schema.dropTable('eval_runs').execute();
    await db.schema.dropTable('eval_sample_sets').execute();
  },
};
