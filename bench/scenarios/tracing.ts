/**
 * What OpenTelemetry tracing costs a refine: the same service twice, tracing off and
 * tracing on (OTLP/HTTP protobuf to a sink that accepts and counts what it gets), against
 * the same instant fake provider, alternating within each round. Off is the default and
 * loads no tracing code; on exports four to five spans per refine in batches.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY, JSON_AUTH, freshSqlite, refineBody, seedPersonas } from '../fixtures.js';
import { type Latency, type Target, type Throughput, closedLoop, median, openLoop } from '../load.js';
import { type Proc, ensureAlive, startFakeProvider, startService } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, ms, percent, perSecond } from '../report.js';
import type { Settings } from '../settings.js';
import { SOCKETS, openaiBaseUrl } from './refine.js';

const SCENARIO = 'Tracing';
/** Below the refine scenario's 1,000/s: a rate both sides sustain on a shared 2-core machine, so CPU per request compares work, not queues. */
const TARGET_RATE = 300;

/** A collector stand-in: reads each export and answers 200, counting bytes. */
async function startOtlpSink(): Promise<{ url: string; exports: () => number; bytes: () => number; close: () => Promise<void> }> {
  let exports = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Round {
  off: Latency;
  on: Latency;
  offMax: Throughput;
  onMax: Throughput;
}

export async function tracing(s: Settings): Promise<ScenarioResult> {
  const fake = await startFakeProvider(0);
  const sink = await startOtlpSink();
  const databases = [freshSqlite(), freshSqlite()];
  const services: Proc[] = [];
  try {
    // Load shedding off in both: on a busy machine it would answer 503s, and this compares the work per refine.
    const provider = { PROVIDER_BASE_URL_OPENAI: openaiBaseUrl(fake.url), LOAD_SHED_EVENT_LOOP_DELAY_MS: '0' };
    services.push(await startService({ name: 'tracing-off', databaseUrl: databases[0]!.url, apiKey: API_KEY, env: provider }));
    services.push(
      await startService({
        name: 'tracing-on',
        databaseUrl: databases[1]!.url,
        apiKey: API_KEY,
        env: { ...provider, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_BSP_SCHEDULE_DELAY: '1000' },
      }),
    );
    const [off, on] = await Promise.all(
      services.map(async (service): Promise<Target> => {
        const [personaId] = await seedPersonas(service.url, 1);
        return { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body: refineBody(personaId!), pid: service.pid };
      }),
    );
    if (s.warmupSeconds > 0) for (const target of [off!, on!]) await openLoop(target, TARGET_RATE, s.warmupSeconds, SOCKETS);
    const rounds: Round[] = [];
    for (let i = 0; i < s.runs; i++) {
      rounds.push({
        off: await openLoop(off!, TARGET_RATE, s.seconds, SOCKETS),
        on: await openLoop(on!, TARGET_RATE, s.seconds, SOCKETS),
        offMax: await closedLoop(off!, s.saturationConnections, s.seconds, 0),
        onMax: await closedLoop(on!, s.saturationConnections, s.seconds, 0),
      });
      ensureAlive(fake, ...services);
    }
    const at = `at ${perSecond(TARGET_RATE)}`;
    const of = s.runs > 1 ? `, median of ${s.runs}` : '';
    const m = (figure: (round: Round) => number) => median(rounds.map(figure));
    const rows: Row[] = [
      info(SCENARIO, `p50 / p99 ${at}: off`, `${ms(m((r) => r.off.p50))} / ${ms(m((r) => r.off.p99))}${of}`),
      info(SCENARIO, `p50 / p99 ${at}: on`, `${ms(m((r) => r.on.p50))} / ${ms(m((r) => r.on.p99))}${of}`),
      info(SCENARIO, `CPU per request ${at}: on ÷ off`, `${m((r) => r.on.cpuUs / r.off.cpuUs).toFixed(2)}× (${cpu(m((r) => r.on.cpuUs))} vs ${cpu(m((r) => r.off.cpuUs))})${of}`),
      info(SCENARIO, `saturated, ${s.saturationConnections} connections: on ÷ off`, `${percent(m((r) => r.onMax.rps / r.offMax.rps))} (${perSecond(m((r) => r.onMax.rps))} vs ${perSecond(m((r) => r.offMax.rps))})${of}`),
      info(SCENARIO, 'exported to the OTLP sink', `${sink.exports()} batches, ${(sink.bytes() / 1024 / 1024).toFixed(1)} MB`),
    ];
    const failed = rounds.reduce((sum, r) => sum + r.off.failed + r.on.failed + r.offMax.failed + r.onMax.failed, 0);
    return { rows, notes: failed > 0 ? [`Tracing: ${failed} requests failed across the runs (see bench/results/logs/tracing-*.log).`] : [] };
  } finally {
    for (const service of services) await service.stop();
    for (const database of databases) await database.drop();
    await sink.close();
    await fake.stop();
  }
}
