/**
 * SQLite's checkpoints, on a thread of their own (docs/storage-and-reliability.md, "Durability").
 * The service's connection commits to the WAL without a disk sync (`synchronous = NORMAL`)
 * and never checkpoints (`wal_autocheckpoint = 0`): a checkpoint syncs the WAL, copies it
 * into the database file and syncs that, which on the event loop stalled every request
 * behind it. This worker's own connection does it every `everyMs` instead, so the syncs
 * wait on its thread, and a power loss can undo at most the commits since the last
 * checkpoint began.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** CommonJS, evaluated in the worker: the bundle (docs/performance.md, "How the service meets them") has no file of its own for it. */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const database = new Sqlite(workerData.path);
// A checkpoint syncs the WAL before copying it and the database file after, unless synchronous is OFF.
database.pragma('synchronous = NORMAL');
database.pragma('busy_timeout = 100');
const frameBytes = database.pragma('page_size', { simple: true }) + 24;
// PASSIVE never waits for the service's connection; what a busy moment leaves is copied next time.
// But the WAL is only reused when a write begins with all of it copied, which writes that never
// pause never allow: it grew without end (200 MB in 15 s of keyed refines). Past restartBytes,
// right after a passive pass copied nearly all of it, RESTART holds writers off while it copies
// the rest and syncs, and waits for readers to leave the WAL: the next write starts it over. Its
// wait for readers holds writers off too, so it gives up after 100 ms (PASSIVE never waits). The
// service's writes are synchronous, so that hold stalls its event loop (about 55 ms here, plus
// the next commit's cut of the file back to journal_size_limit): a valve for the disk, not a
// schedule.
// A failed one (a full disk: the database file cannot grow) is tried again every time, and reported
// once when it starts failing and once when it succeeds again.
let failing = false;
const timer = setInterval(() => {
  try {
    const [{ log }] = database.pragma('wal_checkpoint(PASSIVE)');
    if (log * frameBytes > workerData.restartBytes) database.pragma('wal_checkpoint(RESTART)');
    if (failing) parentPort.postMessage({ recovered: true });
    failing = false;
  } catch (error) {
    if (!failing) parentPort.postMessage({ failed: { message: String(error.message), code: error.code } });
    failing = true;
  }
}, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops checkpointing and closes the worker's connection (before the service's own closes, which then removes the WAL). */
  stop(): Promise<void>;
}

/** What the checkpointer reports, for the service's log. */
export interface CheckpointReports {
  /** A checkpoint failed after the last one succeeded (it is tried again every time). */
  failed(error: Error): void;
  /** A checkpoint succeeded after failing. */
  recovered(): void;
  /**
   * The worker itself died: the service's connection must checkpoint again itself, slower, but a
   * WAL that nobody copies would grow without end.
   */
  crashed(error: Error): void;
}

/** The worker's error, rebuilt on this side of the thread with its SQLite code. */
function workerError({ message, code }: { message: string; code?: string }): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

/** How often, and past which size of the WAL its next checkpoint makes it start over. */
export interface CheckpointSchedule {
  everyMs: number;
  restartBytes: number;
}

/** Checkpoints `path` on `schedule` from a worker thread. */
export function checkpointInBackground(path: string, { everyMs, restartBytes }: CheckpointSchedule, reports: CheckpointReports): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(CHECKPOINTER, { eval: true, workerData: { driver, path, everyMs, restartBytes } });
  worker.on('message', (report: { failed?: { message: string; code?: string }; recovered?: true }) => {
    if (report.failed) reports.failed(workerError(report.failed));
    else if (report.recovered) reports.recovered();
  });
  // A CLI command that opened storage must still exit when it is done (after the listener, which refs the worker).
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped = false;
  worker.once('error', (error) => {
    if (!stopped) reports.crashed(error instanceof Error ? error : new Error(String(error)));
  });
  return {
    async stop() {
      stopped = true;
      // Unreferenced, the process could exit while waiting here, with code 0, before a failed CLI command reported its error.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
