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
import { checkpointInBackground, type Checkpointer } from './sqlite-checkpoints.js';
import { recognisingUnavailability, StorageUnavailableError } from './storage-errors.js';
import type { Database } from './schema.js';

export type Engine = DatabaseConfig['kind'];

export interface Storage {
  db: Kysely<Database>;
  engine: Engine;
  /** True when the engine answers a trivial query. Used by /readyz. */
  ping(): Promise<boolean>;
  /** Where storage's own reports go from now on (the app's logger); stderr until then. */
  reportTo(log: StorageLog): void;
  close(): Promise<void>;
}

/** What storage reports by itself, outside any request: a checkpoint failing, then succeeding again. */
export interface StorageLog {
  warn(message: string, cause?: Error): void;
  info(message: string): void;
}

/** A process without a logger yet (start-up, CLI commands): warnings to stderr. */
const stderrLog: StorageLog = {
  warn: (message, cause) => process.emitWarning(cause ? `${message}: ${cause.message}` : message),
  info: () => {},
};

/**
 * How often the worker checkpoints (a power loss can undo the commits of about this long), and
 * past which size it makes the WAL start over: a safety valve for the disk under writes that
 * never pause, since the restart holds writes, and so the event loop, for tens of milliseconds
 * (docs/storage-and-reliability.md, "Durability").
 */
const CHECKPOINTS = { everyMs: 1_000, restartBytes: 1024 * 1024 * 1024 };

/**
 * SQLite reuses its WAL file rather than shrink it; past this size, the first commit after a
 * complete checkpoint cuts it back, so a WAL that grew while checkpoints could not run (a full
 * disk) gives its space back (docs/storage-and-reliability.md, "A full disk").
 */
export const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

// Each engine's driver is loaded only when configured: startup time matters (docs/performance.md, "Targets").
async function sqliteDialect(path: string, log: () => StorageLog): Promise<{ dialect: SqliteDialect; checkpointer?: Checkpointer }> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const { default: Sqlite } = await import('better-sqlite3');
  const database = new Sqlite(path);
  // docs/storage-and-reliability.md, "Durability": a commit is written to the WAL, which the
  // operating system keeps when the process dies; no disk sync on the event loop. The syncs
  // happen at checkpoints, on a worker thread.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  let checkpointer: Checkpointer | undefined;
  if (path !== ':memory:') {
    database.pragma('wal_autocheckpoint = 0');
    checkpointer = checkpointInBackground(path, CHECKPOINTS, {
      failed: (error) => log().warn('SQLite checkpoint failed; the WAL grows until one succeeds (tried every second)', error),
      recovered: () => log().info('SQLite checkpoints succeed again'),
      crashed: (error) => {
        database.pragma('wal_autocheckpoint = 1000');
        log().warn('SQLite checkpoints moved back to the event loop', error);
      },
    });
  }
  return { dialect: new SqliteDialect({ database: withStatementCache(database) }), checkpointer };
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
  // A client losing its connection must not crash the process: idle, the pool reports it here;
  // checked out (a query running), pg rejects the query and then emits 'error' on the client
  // itself, with no listener of the pool's attached. The query's rejection is the report.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return new PostgresDialect({ pool });
}

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    // At start-up the operator needs the driver's own words ("connect ECONNREFUSED 10.0.0.5:5432").
    const reason = error instanceof StorageUnavailableError ? error.cause : error;
    throw new Error(`migration ${failed} failed: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

export async function openStorage(config: DatabaseConfig): Promise<Storage> {
  let log = stderrLog;
  const { dialect, checkpointer } =
    config.kind === 'sqlite' ? await sqliteDialect(config.path, () => log) : { dialect: await postgresDialect(config.url), checkpointer: undefined };
  const db = new Kysely<Database>({ dialect: recognisingUnavailability(dialect) });
  // The worker's connection closes first, so the service's, the last, checkpoints and removes the WAL.
  const close = async () => {
    await checkpointer?.stop();
    await db.destroy();
  };
  try {
    await migrateToLatest(db);
  } catch (error) {
    await close();
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
    reportTo(target) {
      log = target;
    },
    close,
  };
}
