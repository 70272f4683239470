/** What a reader of the database could see, for tests that prove a secret is not in it. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import type { TestServer } from './test-server.js';

/** Every file of a SQLite database (the WAL included), or every row of every PostgreSQL table, as text. */
export async function databaseText(server: TestServer): Promise<string> {
  const config = server.config.database;
  if (config.kind === 'sqlite') {
    const dir = dirname(config.path);
    return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name)))).toString('latin1');
  }
  const db = server.storage.db;
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema()`.execute(db);
  const rows = [];
  for (const { table_name } of tables.rows) rows.push(...(await sql`select * from ${sql.table(table_name)}`.execute(db)).rows);
  return JSON.stringify(rows);
}
