/**
 * WORKERS=2 against WORKERS=1 for GET /v1/personas/{id}. Whether the server honours
 * WORKERS is detected from its process tree, never assumed: with one process there is
 * no second worker, and a number would be a lie.
 */
import { API_KEY, AUTH, freshSqlite, seedPersonas } from '../fixtures.js';
import { closedLoop, type Throughput } from '../load.js';
import { type Proc, ensureAlive, processTree, startService } from '../processes.js';
import { type ScenarioResult, cpu, info, perSecond, skipped } from '../report.js';
import type { Settings } from '../settings.js';

const SCENARIO = 'WORKERS';
const describe = (t: Throughput) => `${perSecond(t.rps)}, ${cpu(t.cpuUs)}${t.failed > 0 ? ` (${t.failed} failed: ${JSON.stringify(t.statusCodes)})` : ''}`;

async function withWorkers<T>(workers: number, use: (service: Proc) => Promise<T>): Promise<T> {
  const database = freshSqlite();
  try {
    const service = await startService({ name: `workers-${workers}`, databaseUrl: database.url, apiKey: API_KEY, env: { WORKERS: String(workers) } });
    try {
      return await use(service);
    } finally {
      await service.stop();
    }
  } finally {
    await database.drop();
  }
}

/** Processes in the service's tree once every worker had time to come up. */
async function settledProcessCount(service: Proc): Promise<number> {
  let count = 0;
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    count = Math.max(count, processTree(service.pid).length);
  }
  return count;
}

async function byIdThroughput(service: Proc, s: Settings): Promise<Throughput> {
  const [, id] = await seedPersonas(service.url, 2);
  const result = await closedLoop({ url: `${service.url}/v1/personas/${id}`, headers: AUTH, pid: service.pid }, s.connections, s.seconds, s.warmupSeconds);
  ensureAlive(service);
  return result;
}

export async function workers(s: Settings): Promise<ScenarioResult> {
  const two = await withWorkers(2, async (service) => {
    const processes = await settledProcessCount(service);
    if (processes < 2) return { processes, throughput: undefined };
    return { processes, throughput: await byIdThroughput(service, s) };
  });
  if (!two.throughput) {
    return { rows: [skipped(SCENARIO, 'WORKERS not supported yet (WORKERS=2 started a single process)')], notes: [] };
  }
  const one = await withWorkers(1, (service) => byIdThroughput(service, s));
  return {
    rows: [
      info(SCENARIO, `GET /v1/personas/{id}, WORKERS=1, ${s.connections} connections`, describe(one)),
      info(SCENARIO, `GET /v1/personas/{id}, WORKERS=2 (${two.processes} processes)`, describe(two.throughput)),
      info(SCENARIO, 'WORKERS=2 ÷ WORKERS=1', `${(two.throughput.rps / one.rps).toFixed(2)}×`),
    ],
    notes: ['On a 2-core machine the load generator needs a core too, so WORKERS=2 competes with it; expect well under 2×.'],
  };
}
