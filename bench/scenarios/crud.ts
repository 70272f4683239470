/**
 * CRUD throughput against a bare Fastify "hello world" measured in the same run, same
 * connection count and duration: the ratio is what is compared, because absolute
 * requests/s on a shared machine say more about the neighbours than about the service.
 */
import { API_KEY, AUTH, type Database, JSON_AUTH, PERSONA, freshPostgres, freshSqlite, seedPersonas } from '../fixtures.js';
import { closedLoop, median, type Throughput } from '../load.js';
import { ensureAlive, startBaseline, startService } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, judged, percent, perSecond, skipped } from '../report.js';
import type { Settings } from '../settings.js';

const describe = (t: Throughput) =>
  `${perSecond(t.rps)}, ${cpu(t.cpuUs)}${t.failed > 0 ? ` (${t.failed} failed: ${JSON.stringify(t.statusCodes)})` : ''}`;

export async function crud(s: Settings, storage: 'sqlite' | 'postgres'): Promise<ScenarioResult> {
  const scenario = storage === 'sqlite' ? 'CRUD (SQLite)' : 'CRUD (PostgreSQL)';
  const database: Database | undefined = storage === 'sqlite' ? freshSqlite() : await freshPostgres();
  if (!database) {
    return { rows: [skipped(scenario, '*** SKIPPED: PostgreSQL not reachable at 127.0.0.1:5432')], notes: [] };
  }
  const baseline = await startBaseline();
  try {
    const service = await startService({ name: `crud-${storage}`, databaseUrl: database.url, apiKey: API_KEY });
    try {
      const ids = await seedPersonas(service.url, 20);
      const run = async (target: Parameters<typeof closedLoop>[0]) => {
        const result = await closedLoop(target, s.connections, s.seconds, s.warmupSeconds);
        ensureAlive(baseline, service);
        return result;
      };

      // Baseline and service alternate, round after round, so drift in what the neighbours do hits both alike.
      const rounds: { hello: Throughput; byId: Throughput }[] = [];
      for (let i = 0; i < s.runs; i++) {
        rounds.push({
          hello: await run({ url: baseline.url, pid: baseline.pid }),
          byId: await run({ url: `${service.url}/v1/personas/${ids[9]}`, headers: AUTH, pid: service.pid }),
        });
      }
      const ratio = (r: (typeof rounds)[number]) => r.byId.rps / r.hello.rps;
      const middle = median(rounds.map(ratio));
      const { hello, byId } = rounds.find((r) => ratio(r) === middle)!;
      const list = await run({ url: `${service.url}/v1/personas`, headers: AUTH, pid: service.pid });
      // Writes last, so the list above really had 20 personas.
      const create = await run({ url: `${service.url}/v1/personas`, method: 'POST', headers: JSON_AUTH, body: JSON.stringify(PERSONA), pid: service.pid });
      const of = s.runs > 1 ? `, median of ${s.runs}` : '';

      const rows: Row[] = [
        info(scenario, `bare Fastify hello world, ${s.connections} connections`, describe(hello)),
        info(scenario, 'GET /v1/personas/{id}', describe(byId)),
        judged(scenario, `GET /v1/personas/{id} ÷ baseline${of}`, middle, percent(middle), { atLeast: 0.75, text: '≥ 75%' }),
        // Same ratio from CPU cost per request: less sensitive to being descheduled by neighbours, and what
        // throughput would be if the server, not the load generator, were the bottleneck.
        info(scenario, 'same ratio from server CPU per request', percent(hello.cpuUs / byId.cpuUs)),
        info(scenario, 'GET /v1/personas (20 personas)', describe(list)),
        info(scenario, 'GET /v1/personas ÷ baseline', percent(list.rps / hello.rps)),
        info(scenario, 'POST /v1/personas (writes)', describe(create)),
      ];
      return { rows, notes: [] };
    } finally {
      await service.stop();
    }
  } finally {
    await baseline.stop();
    await database.drop();
  }
}
