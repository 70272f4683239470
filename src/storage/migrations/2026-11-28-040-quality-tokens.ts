import type { Kysely, Migration } from 'kysely';

/**
 * Quality rows count the tokens their answers cost (docs/quality.md), so a persona's tokens per
 * day can be read beside its answers. Rows written before cost 0: what they cost was not kept.
 * Both engines add a NOT NULL column with a default in place.
 */
const COLUMNS = ['input_tokens', 'output_tokens'] as const;

export const qualityTokens: Migration = {
  async up(db: Kysely<unknown>) {
    for (const column of COLUMNS) {
      await db.schema.alterTable('quality_daily').addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    }
  },
  async down(db: Kysely<unknown>) {
    for (const column of COLUMNS) await db.schema.alterTable('quality_daily').dropColumn(column).execute();
  },
};
