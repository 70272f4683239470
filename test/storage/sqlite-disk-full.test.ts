/**
 * SQLite on a full disk (docs/storage-and-reliability.md, "A full disk"): writes answer 503
 * with the cause in the log, the checkpointer says so in the same JSON log, and once space
 * is free the service writes again and its WAL shrinks, without a restart. The disk is a
 * small tmpfs, which only root may mount: anyone else gets a loud skip; under
 * REQUIRE_SERVICES=1 a root that cannot mount one fails the run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAL_SIZE_LIMIT_BYTES } from '../../src/storage/database.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const MiB = 1024 * 1024;
const DISK_BYTES = 32 * MiB;
/** Half the disk holds a file that is deleted to free space; the database fills the rest. */
const FILLER_BYTES = 16 * MiB;

/** A fresh tmpfs mounted at a new directory, or why there cannot be one. */
function mountSmallDisk(): { dir: string } | { reason: string } {
  if (process.getuid?.() !== 0) return { reason: 'only root can mount the small tmpfs it fills (run the tests as root)' };
  const dir = mkdtempSync(join(tmpdir(), 'persona-refine-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_BYTES}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const reason = `running as root, but mounting a tmpfs failed: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
    if (process.env.REQUIRE_SERVICES === '1') throw new Error(`REQUIRE_SERVICES=1: ${reason}`);
    return { reason };
  }
}

const disk = mountSmallDisk();
if ('reason' in disk) console.warn(`\n*** SKIPPING the SQLite disk-full test: ${disk.reason} ***\n`);

describe.skipIf('reason' in disk)(`SQLite on a full disk${'reason' in disk ? ` (skipped: ${disk.reason})` : ''}`, () => {
  const dir = 'dir' in disk ? disk.dir : '';
  const path = join(dir, 'personas.sqlite');
  const filler = join(dir, 'filler');
  const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  let server: TestServer | undefined;
  const unmount = () => {
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  };

  beforeAll(async () => {
    server = await startTestServer({
      target: {
        engine: 'sqlite',
        create: async () => ({
          config: { kind: 'sqlite', path },
          url: `sqlite:${path}`,
          remove: async () => unmount(),
        }),
      },
      env: { RATE_LIMIT_PER_MINUTE: '1000000' },
    });
    writeFileSync(filler, Buffer.alloc(FILLER_BYTES, 1));
  });
  afterAll(async () => {
    if (server) await server.close();
    else unmount();
  });

  const logLines = () => server!.logs.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown> & { msg: string });
  const createPersona = (name: string, description = 'd'.repeat(60_000)) =>
    server!.request('/v1/personas', { method: 'POST', json: { name, attributes: { description } } });

  it('answers 503 with Retry-After and logs SQLITE_FULL while the disk is full, then writes again and shrinks the WAL once space is free', async () => {
    // Writers in parallel until the disk is full: each persona is about 120 KB (itself and its first version).
    let refused: Response | undefined;
    for (let round = 0; refused === undefined && round < 200; round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => createPersona(`filling ${round}-${i}`)));
      refused = answers.find((res) => res.status !== 201);
      await Promise.all(answers.map((res) => (res === refused ? undefined : res.arrayBuffer())));
    }
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(await refused?.json()).toEqual({ error: 503, message: 'storage is unavailable; retry shortly' });

    // The request's log line names the cause, not a failed ROLLBACK.
    const failed = logLines().find((line) => line.msg === 'request failed');
    expect(failed).toMatchObject({ level: 40, code: 'unavailable', err: { code: 'SQLITE_FULL' } });
    expect(logLines().some((line) => line.msg === 'unhandled error')).toBe(false);
    // The checkpointer cannot copy the WAL into a database file that cannot grow, and says so in the same log.
    await expect.poll(() => logLines().find((line) => /checkpoint/i.test(line.msg) && line.level === 40), { timeout: 10_000 })
      .toMatchObject({ err: { code: 'SQLITE_FULL' } });
    const walWhenFull = walBytes();
    expect(walWhenFull).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);

    console.log(`WAL when the disk was full: ${(walWhenFull / MiB).toFixed(1)} MiB`);
    rmSync(filler);
    await expect.poll(async () => (await createPersona('after the disk was freed', 'small')).status, { timeout: 10_000 }).toBe(201);
    // A later checkpoint copies the whole WAL; the next commit then cuts the file back.
    await expect.poll(async () => {
      expect((await createPersona('while the WAL shrinks', 'small')).status).toBe(201);
      return walBytes();
    }, { timeout: 15_000, interval: 250 }).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    expect(logLines().some((line) => /checkpoint/i.test(line.msg) && line.level === 30)).toBe(true);
  }, 120_000);
});
