/**
 * SQLite's durability model (docs/storage-and-reliability.md, "Durability"): the service's
 * connection commits without a sync and never checkpoints; a worker thread copies the WAL
 * into the database file, and the service's connection, the last to close, removes the WAL.
 */
import { copyFileSync, existsSync, statSync } from 'node:fs';
import Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage, WAL_SIZE_LIMIT_BYTES } from '../../src/storage/database.js';
import { checkpointInBackground } from '../../src/storage/sqlite-checkpoints.js';
import { sqliteTarget } from '../helpers/storage-targets.js';

describe('SQLite checkpoints', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function open(): Promise<{ storage: Storage; path: string }> {
    const database = await sqliteTarget.create();
    const storage = await openStorage(database.config);
    cleanup = async () => {
      await storage.close();
      await database.remove();
    };
    return { storage, path: (database.config as { path: string }).path };
  }

  it('the service connection commits without a sync and leaves checkpoints to the worker', async () => {
    const { storage } = await open();
    const pragma = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(storage.db)).rows[0] as object)[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(1); // NORMAL
    expect(await pragma('wal_autocheckpoint')).toBe(0);
  });

  it('what was committed reaches the database file without the service connection checkpointing', async () => {
    const { storage, path } = await open();
    await sql`create table probe (n integer)`.execute(storage.db);
    for (let n = 0; n < 100; n++) await sql`insert into probe values (${n})`.execute(storage.db);
    // The database file alone, without its WAL, as a power loss after the next checkpoint would leave it.
    const copy = `${path}.copy`;
    const countInFile = () => {
      copyFileSync(path, copy);
      const file = new Sqlite(copy, { readonly: true });
      try {
        return (file.prepare(`select count(*) as n from sqlite_master where name = 'probe'`).get() as { n: number }).n === 1
          ? (file.prepare('select count(*) as n from probe').get() as { n: number }).n
          : 0;
      } finally {
        file.close();
      }
    };
    await expect.poll(countInFile, { timeout: 10_000, interval: 100 }).toBe(100);
  });

  it('writes that never pause still let the WAL start over past the valve, so it stays bounded', async () => {
    const database = await sqliteTarget.create();
    const path = (database.config as { path: string }).path;
    // The service's connection as src/storage/database.ts opens it, and the checkpointer with a small valve.
    const writer = new Sqlite(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('synchronous = NORMAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    const restartBytes = 16 * 1024 * 1024;
    const checkpointer = checkpointInBackground(path, { everyMs: 50, restartBytes }, { failed: () => {}, recovered: () => {}, crashed: () => {} });
    cleanup = async () => {
      await checkpointer.stop();
      writer.close();
      await database.remove();
    };
    writer.exec('create table probe (n integer, filler blob)');
    const insert = writer.prepare('insert into probe values (?, ?)');
    const filler = Buffer.alloc(16 * 1024, 1);
    const walBytes = () => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    // A restart is seen as the WAL shrinking (journal_size_limit cuts it back when it starts over). Without
    // one, a passive checkpoint never finds the WAL fully copied between two writes, and it only grows.
    let largest = 0;
    let written = 0;
    let shrunk = false;
    const started = performance.now();
    while (!shrunk && (written < 512 * 1024 * 1024 || performance.now() - started < 10_000)) {
      insert.run(written, filler);
      written += filler.length;
      const now = walBytes();
      shrunk = now < largest;
      largest = Math.max(largest, now);
    }
    expect(shrunk, `the WAL grew to ${largest} bytes and never started over`).toBe(true);
    expect(largest).toBeGreaterThan(restartBytes);
  }, 120_000);

  it('closing stops the worker first, so the service connection checkpoints last and removes the WAL', async () => {
    const { storage, path } = await open();
    await sql`create table probe (n integer)`.execute(storage.db);
    await sql`insert into probe values (1)`.execute(storage.db);
    expect(existsSync(`${path}-wal`)).toBe(true);
    await storage.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const file = new Sqlite(path, { readonly: true });
    expect((file.prepare('select count(*) as n from probe').get() as { n: number }).n).toBe(1);
    file.close();
  });
});
