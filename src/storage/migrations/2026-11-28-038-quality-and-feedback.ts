import { type Kysely, type Migration } from 'kysely';

/**
 * Quality on live traffic and feedback (docs/quality.md): daily aggregates added to by upserts,
 * the answer log feedback looks requests up in, and the feedback itself. No table holds a
 * request's or an answer's text; `feedback.corrected_text` is what the caller sent as feedback.
 */
const AGGREGATE_KEY = ['account_id', 'persona_id', 'version', 'endpoint', 'day'] as const;
const COUNTERS = ['answers', 'score_sum', 'below_min_score', 'with_required_findings', 'feedback_up', 'feedback_down'] as const;

export const qualityAndFeedback: Migration = {
  async up(db: Kysely<unknown>) {
    let daily = db.schema.createTable('quality_daily');
    for (const column of AGGREGATE_KEY) daily = daily.addColumn(column, column === 'version' ? 'integer' : 'text', (c) => c.notNull());
    for (const counter of COUNTERS) daily = daily.addColumn(counter, 'bigint', (c) => c.notNull().defaultTo(0));
    await daily.addPrimaryKeyConstraint('quality_daily_pk', [...AGGREGATE_KEY] as never).execute();

    let findings = db.schema.createTable('quality_findings_daily');
    for (const column of AGGREGATE_KEY) findings = findings.addColumn(column, column === 'version' ? 'integer' : 'text', (c) => c.notNull());
    await findings
      .addColumn('rule', 'text', (c) => c.notNull())
      .addColumn('findings', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('quality_findings_daily_pk', [...AGGREGATE_KEY, 'rule'] as never)
      .execute();

    await db.schema
      .createTable('answer_log')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('answered_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('answer_log_pk', ['account_id', 'request_id'])
      .execute();
    await db.schema.createIndex('answer_log_answered_at').on('answer_log').column('answered_at').execute();
    await db.schema.createIndex('answer_log_persona').on('answer_log').columns(['account_id', 'persona_id']).execute();

    await db.schema
      .createTable('feedback')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('persona_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('answer_day', 'text', (c) => c.notNull())
      .addColumn('rating', 'text', (c) => c.notNull())
      .addColumn('corrected_text', 'text')
      .addColumn('comment', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('feedback_request_unique', ['account_id', 'request_id'])
      .execute();
    await db.schema.createIndex('feedback_persona').on('feedback').columns(['account_id', 'persona_id', 'id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('feedback').execute();
    await db.schema.dropTable('answer_log').execute();
    await db.schema.dropTable('quality_findings_daily').execute();
    await db.schema.dropTable('quality_daily').execute();
  },
};
