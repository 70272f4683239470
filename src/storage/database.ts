/**
 * Opens the configured engine behind one Kysely interface and brings its
 * schema up to date. SQLite is the embedded default; PostgreSQL when
 * DATABASE_URL says so. Same migrations, same repositories, same tests.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type SqliteDialectConfig, sql } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type Engine = DatabaseConfig['kind'];

export interface Storage {
  db: Kysely<Database>;
  engine: Engine;
  /** True when the engine answers a trivial query. Used by /readyz. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

// Each engine's driver is loaded only when configured: startup time matters (DESIGN.md §7).
async function sqliteDialect(path: string): Promise<SqliteDialect> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const { default: Sqlite } = await import('better-sqlite3');
  const database = new Sqlite(path);
  // WAL + synchronous=FULL: a write that was acknowledged survives kill -9 and power loss.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return new SqliteDialect({ database: withStatementCache(database) });
}

/**
 * Kysely prepares every statement anew; preparing costs more than running a
 * point lookup. The SQL texts are few (queries are built, not concatenated),
 * so each is prepared once and reused.
 */
function withStatementCache(database: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= 1000) statements.clear();
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  } as SqliteDialectConfig['database'];
}

async function postgresDialect(url: string): Promise<PostgresDialect> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return new PostgresDialect({ pool });
}

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function openStorage(config: DatabaseConfig): Promise<Storage> {
  const dialect = config.kind === 'sqlite' ? await sqliteDialect(config.path) : await postgresDialect(config.url);
  const db = new Kysely<Database>({ dialect });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    engine: config.kind,
    async ping() {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08006',
]);

/** Whether an error means "the database is not reachable right now" rather than a bug. */
export function isStorageUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    error.message,
  );
}
