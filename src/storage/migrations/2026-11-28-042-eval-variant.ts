import type { Kysely, Migration } from 'kysely';

/** Issue 40: an evaluation run may be of one of the persona's variants; runs before it are of none (null). */
export const evalVariant: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('eval_runs').addColumn('variant', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('eval_runs').dropColumn('variant').execute();
  },
};
