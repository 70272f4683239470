/**
 * CRUD throughput against baselines measured in the same run, same connection count and
 * duration: the ratio is what is compared, because absolute requests/s on a shared machine
 * say more about the neighbours than about the service. The judged baseline does the read's
 * own work (bench/read-baseline-server.ts: key lookup, one prepared SQLite point read, the
 * same log line); a bare "hello world" is kept beside it as information.
 */
import { API_KEY, AUTH, type Database, JSON_AUTH, PERSONA, freshPostgres, freshSqlite, seedPersonas } from '../fixtures.js';
import { closedLoop, medianRound, type Throughput } from '../load.js';
import { type Proc, ensureAlive, startBaseline, startReadBaseline, startService } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, judged, percent, perSecond, skipped } from '../report.js';
import type { Settings } from '../settings.js';

const describe = (t: Throughput) =>
  `${perSecond(t.rps)}, ${cpu(t.cpuUs)}${t.failed > 0 ? ` (${t.failed} failed: ${JSON.stringify(t.statusCodes)})` : ''}`;

interface Round {
  hello: Throughput;
  read?: Throughput;
  byId: Throughput;
}

export async function crud(s: Settings, storage: 'sqlite' | 'postgres'): Promise<ScenarioResult> {
  const scenario = storage === 'sqlite' ? 'CRUD (SQLite)' : 'CRUD (PostgreSQL)';
  const database: Database | undefined = storage === 'sqlite' ? freshSqlite() : await freshPostgres();
  if (!database) {
    return { rows: [skipped(scenario, '*** SKIPPED: PostgreSQL not reachable at 127.0.0.1:5432')], notes: [] };
  }
  const baseline = await startBaseline();
  let readBaseline: Proc | undefined;
  try {
    const service = await startService({ name: `crud-${storage}`, databaseUrl: database.url, apiKey: API_KEY, env: { LOG_FORMAT: 'json' } });
    try {
      const ids = await seedPersonas(service.url, 20);
      if (storage === 'sqlite') readBaseline = await startReadBaseline(database.url.replace(/^sqlite:/, ''));
      const run = async (target: Parameters<typeof closedLoop>[0]) => {
        const result = await closedLoop(target, s.connections, s.seconds, s.warmupSeconds);
        ensureAlive(baseline, service, ...(readBaseline ? [readBaseline] : []));
        return result;
      };
      const path = `/v1/personas/${ids[9]}`;

      // Baselines and service alternate, round after round, so drift in what the neighbours do hits all alike.
      const rounds: Round[] = [];
      for (let i = 0; i < s.runs; i++) {
        rounds.push({
          hello: await run({ url: baseline.url, pid: baseline.pid }),
          read: readBaseline ? await run({ url: readBaseline.url + path, headers: AUTH, pid: readBaseline.pid }) : undefined,
          byId: await run({ url: service.url + path, headers: AUTH, pid: service.pid }),
        });
      }
      const of = s.runs > 1 ? `, median of ${s.runs}` : '';
      const helloRatio = (r: Round) => r.byId.rps / r.hello.rps;
      const typical = medianRound(rounds, helloRatio);
      const list = await run({ url: `${service.url}/v1/personas`, headers: AUTH, pid: service.pid });
      // Writes last, so the list above really had 20 personas.
      const create = await run({ url: `${service.url}/v1/personas`, method: 'POST', headers: JSON_AUTH, body: JSON.stringify(PERSONA), pid: service.pid, idempotent: true });

      const rows: Row[] = [info(scenario, `bare Fastify hello world, ${s.connections} connections`, describe(typical.hello))];
      if (readBaseline) {
        const readRatio = (r: Round) => r.byId.rps / r.read!.rps;
        const cpuRatio = (r: Round) => r.byId.cpuUs / r.read!.cpuUs;
        const readRound = medianRound(rounds, readRatio);
        const middle = readRatio(readRound);
        const cpuRound = medianRound(rounds, cpuRatio);
        const cpuMiddle = cpuRatio(cpuRound);
        rows.push(
          info(scenario, 'read baseline: bare Fastify, same key lookup, one prepared SQLite read, same log line', describe(readRound.read!)),
          info(scenario, 'GET /v1/personas/{id}', describe(readRound.byId)),
          judged(scenario, `GET /v1/personas/{id} ÷ read baseline, throughput${of}`, middle, percent(middle), { atLeast: 0.6, text: '≥ 60%' }),
          judged(scenario, `GET /v1/personas/{id} ÷ read baseline, CPU per request${of}`, cpuMiddle, `${cpuMiddle.toFixed(2)}× (${cpu(cpuRound.byId.cpuUs)} vs ${cpu(cpuRound.read!.cpuUs)})`, { atMost: 1.6, text: '≤ 1.6×' }),
        );
      } else {
        rows.push(info(scenario, 'GET /v1/personas/{id}', describe(typical.byId)));
      }
      rows.push(
        info(scenario, `GET /v1/personas/{id} ÷ hello world, throughput${of}`, percent(helloRatio(typical))),
        // The same from CPU per request: less sensitive to being descheduled by neighbours.
        info(scenario, 'GET /v1/personas/{id} ÷ hello world, from server CPU per request', percent(typical.hello.cpuUs / typical.byId.cpuUs)),
        info(scenario, 'GET /v1/personas (20 personas)', describe(list)),
        info(scenario, 'GET /v1/personas ÷ hello world', percent(list.rps / typical.hello.rps)),
        info(scenario, 'POST /v1/personas (writes, an Idempotency-Key on each)', describe(create)),
      );
      return { rows, notes: [] };
    } finally {
      await service.stop();
    }
  } finally {
    await readBaseline?.stop();
    await baseline.stop();
    await database.drop();
  }
}
