/**
 * The storage layer says when the database cannot be reached: every query, connection
 * and transaction goes through a driver that turns the engines' own "unreachable"
 * errors into a StorageUnavailableError (a 503 with Retry-After). The HTTP layer never
 * guesses from error codes, which other libraries (Redis, sockets) share.
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';
import { DomainError } from '../errors.js';

/** What better-sqlite3 and pg report when the database is there but cannot answer now. */
const UNREACHABLE_CODES = new Set([
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
const UNREACHABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

export class StorageUnavailableError extends DomainError {
  constructor(cause: Error) {
    super('unavailable', 'storage is unavailable; retry shortly', { headers: { 'retry-after': '1' }, cause });
    this.name = 'StorageUnavailableError';
  }
}

/**
 * Whether the database refused the values themselves (PostgreSQL's data exceptions, class 22,
 * and integrity violations, class 23; SQLite's constraint, size and type errors): writing the
 * same row again can never succeed, unlike when the database is merely unreachable.
 */
export function isRefusedValue(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return false;
  return /^2[23][0-9A-Z]{3}$/.test(code) || /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/.test(code);
}

/** Whether a write met a row with the same unique key (PostgreSQL 23505; SQLite's unique and primary key constraints). */
export function isUniqueViolation(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The error to throw for an engine's error: a StorageUnavailableError when it cannot answer now. */
function recognised(error: unknown): unknown {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if ((typeof code === 'string' && UNREACHABLE_CODES.has(code)) || UNREACHABLE_MESSAGES.test(error.message)) {
      return new StorageUnavailableError(error);
    }
  }
  return error;
}

function recognise(error: unknown): never {
  throw recognised(error);
}

class RecognisingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return this.inner.executeQuery<R>(query).catch(recognise);
    } catch (error) {
      // better-sqlite3 runs the statement at once: Kysely's SQLite connection throws instead of rejecting.
      return Promise.reject(recognised(error));
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (error) {
      recognise(error);
    }
  }
}

type CompileQuery = QueryCompiler['compileQuery'];

/**
 * Transactions and savepoints are run by the engine's driver through the connection's
 * executeQuery, so handing it the recognising connection covers them too.
 */
class RecognisingDriver implements Driver {
  // Drivers hand out the same connection object for the same underlying connection.
  private readonly connections = new WeakMap<DatabaseConnection, RecognisingConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init().catch(recognise);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection().catch(recognise);
    let connection = this.connections.get(inner);
    if (!connection) {
      connection = new RecognisingConnection(inner);
      this.connections.set(inner, connection);
    }
    return connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  /**
   * SQLite rolls a transaction back itself when a statement in it fails with SQLITE_FULL (or an
   * I/O error); the ROLLBACK that follows then fails, and its error would replace the cause.
   */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(connection);
    } catch (error) {
      if (!(error instanceof Error && /no transaction is active/.test(error.message))) throw error;
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  // The engine's driver releases its own connection object, not our wrapper.
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as RecognisingConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The dialect with its driver's "unreachable" errors typed as StorageUnavailableError. */
export function recognisingUnavailability(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new RecognisingDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
