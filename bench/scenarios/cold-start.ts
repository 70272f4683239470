/**
 * Cold start: from spawn() to the first answered request, median of several runs, on a
 * fresh SQLite file (first start: migrations and the bootstrap key) and on an existing one
 * (a restart), as `node dist/server.js` and as `npm start` (the user's path: npm's own
 * start-up and the prestart build check included, on a built checkout). A bare Fastify
 * start is measured the same way as the floor Node sets.
 */
import { spawn } from 'node:child_process';
import { API_KEY, AUTH, freshSqlite } from '../fixtures.js';
import { median } from '../load.js';
import { BASELINE_ENTRY, ROOT, freePort, launchService, track, treeCpuSeconds, waitFor200 } from '../processes.js';
import { type Row, type ScenarioResult, info, judged, ms } from '../report.js';
import type { Settings } from '../settings.js';

const SCENARIO = 'Cold start (SQLite)';
/** Poll interval: the figures are accurate to about this much. */
const POLL_MS = 5;

interface Start {
  healthz: number;
  authenticated: number;
  /** CPU time (user + system) the process tree had used when both had answered: what a busy machine disturbs least. */
  cpuMs: number;
}

/** One start of the service on `databaseUrl`; both probes poll in parallel from the same instant. */
async function startOnce(databaseUrl: string, viaNpm = false): Promise<Start> {
  const service = await launchService({ name: viaNpm ? 'cold-start-npm' : 'cold-start', databaseUrl, apiKey: API_KEY, viaNpm });
  try {
    const since = (probe: Promise<void>) => probe.then(() => performance.now() - service.spawnedAt);
    const [healthz, authenticated] = await Promise.all([
      since(waitFor200(`${service.url}/healthz`, service.child, 20_000, {}, POLL_MS)),
      since(waitFor200(`${service.url}/v1/personas`, service.child, 20_000, AUTH, POLL_MS)),
    ]);
    // npm start: npm's own start-up and the prestart check ran in processes that have exited by now.
    return { healthz, authenticated, cpuMs: treeCpuSeconds(service.pid, true) * 1000 };
  } finally {
    await service.stop();
  }
}

async function baselineOnce(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [BASELINE_ENTRY, String(port)], { cwd: ROOT, stdio: 'ignore' });
  const stop = track(child);
  try {
    await waitFor200(`http://127.0.0.1:${port}/`, child, 20_000, {}, POLL_MS);
    return performance.now() - started;
  } finally {
    await stop();
  }
}

export async function coldStart(s: Settings): Promise<ScenarioResult> {
  // The runner's own first fetch() loads undici; pay that before any clock starts.
  await fetch('http://127.0.0.1:1/').catch(() => {});
  const fresh: Start[] = [];
  const restart: Start[] = [];
  const npmStart: Start[] = [];
  const bare: number[] = [];
  for (let i = 0; i < s.coldStartRuns; i++) {
    const database = freshSqlite();
    try {
      fresh.push(await startOnce(database.url));
      restart.push(await startOnce(database.url));
      npmStart.push(await startOnce(database.url, true));
    } finally {
      await database.drop();
    }
    bare.push(await baselineOnce());
  }
  const runs = `median of ${s.coldStartRuns}`;
  const rows: Row[] = [];
  const cases = [
    ['node dist/server.js, fresh database (first start)', fresh, 500],
    ['node dist/server.js, existing database (restart)', restart, 500],
    ['npm start, built checkout, existing database', npmStart, 1000],
  ] as const;
  for (const [label, starts, limit] of cases) {
    const healthz = median(starts.map((start) => start.healthz));
    const authenticated = median(starts.map((start) => start.authenticated));
    const target = { atMost: limit, text: limit === 1000 ? '≤ 1 s' : `≤ ${limit / 1000} s` };
    rows.push(
      judged(SCENARIO, `${label}: spawn → first GET /healthz, ${runs}`, healthz, ms(healthz), target),
      judged(SCENARIO, `${label}: spawn → first authenticated GET /v1/personas, ${runs}`, authenticated, ms(authenticated), target),
      info(SCENARIO, `${label}: CPU time used by then (user + system), ${runs}`, ms(median(starts.map((start) => start.cpuMs)))),
    );
  }
  rows.push(info(SCENARIO, `bare Fastify: spawn → first GET /, ${runs}`, ms(median(bare))));
  return { rows, notes: [`Cold-start probes poll every ${POLL_MS} ms, so those figures are accurate to about ${POLL_MS} ms.`] };
}
