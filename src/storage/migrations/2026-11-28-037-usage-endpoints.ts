import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Issue 36: usage rows tell a refine from a chat completion (`endpoint`, part of each row's
 * key). Neither engine adds a column to a primary key in place (SQLite cannot alter one at
 * all), so each table is rebuilt: renamed, created again with `endpoint`, filled with the old
 * rows as `refine` (everything counted before was), and the old one dropped. The new
 * constraints have names of their own: PostgreSQL's are unique per schema, and the renamed
 * table still holds the old ones until it is dropped.
 */
const COUNTERS = ['refines', 'failures', 'cache_hits', 'provider_calls', 'input_tokens', 'output_tokens'] as const;

async function rebuild(db: Kysely<unknown>, table: string, key: string[], primaryKey: string, endpoint: boolean): Promise<void> {
  await db.schema.alterTable(table).renameTo(`${table}_previous`).execute();
  let create = db.schema.createTable(table);
  for (const column of key) create = create.addColumn(column, 'text', (c) => c.notNull());
  if (endpoint) create = create.addColumn('endpoint', 'text', (c) => c.notNull().defaultTo('refine'));
  for (const counter of COUNTERS) create = create.addColumn(counter, 'bigint', (c) => c.notNull().defaultTo(0));
  await create.addPrimaryKeyConstraint(primaryKey, (endpoint ? [...key, 'endpoint'] : key) as never).execute();
  const columns = sql.join([...key, ...COUNTERS].map((column) => sql.ref(column)));
  const sums = sql.join(COUNTERS.map((counter) => sql`sum(${sql.ref(counter)})`));
  const keyColumns = sql.join(key.map((column) => sql.ref(column)));
  // Down, several endpoints' rows of one key become one row again: summed.
  await sql`insert into ${sql.table(table)} (${columns}) select ${keyColumns}, ${sums} from ${sql.table(`${table}_previous`)} group by ${keyColumns}`.execute(db);
  await db.schema.dropTable(`${table}_previous`).execute();
}

const DAILY_KEY = ['account_id', 'day', 'provider', 'model'];
const KEYS_KEY = [...DAILY_KEY, 'key_id'];

export const usageEndpoints: Migration = {
  async up(db: Kysely<unknown>) {
    await rebuild(db, 'usage_daily', DAILY_KEY, 'usage_daily_endpoint_pk', true);
    await rebuild(db, 'usage_daily_keys', KEYS_KEY, 'usage_daily_keys_endpoint_pk', true);
  },
  async down(db: Kysely<unknown>) {
    await rebuild(db, 'usage_daily', DAILY_KEY, 'usage_daily_pk', false);
    await rebuild(db, 'usage_daily_keys', KEYS_KEY, 'usage_daily_keys_pk', false);
  },
};
