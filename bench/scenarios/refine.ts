/**
 * Refine overhead: the same instant fake provider called directly and through the
 * service at a fixed request rate; the difference in latency is what the service adds.
 */
import { startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { publicBasePath } from '../../test/fakes/provider-wire-formats.js';
import { API_KEY, JSON_AUTH, PROVIDER_KEY, freshSqlite, refineBody, seedPersonas } from '../fixtures.js';
import { type Latency, type Target, closedLoop, openLoop } from '../load.js';
import { type Proc, ensureAlive, startFakeProvider, startService } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, judged, ms, perSecond } from '../report.js';
import type { Settings } from '../settings.js';

const SCENARIO = 'Refine overhead';
const TARGET_RATE = 1_000;
/** The comfortable rate the added latency is also measured at (see below). */
const FALLBACK_RATE = 250;
const SOCKETS = 50;

const openaiBaseUrl = (fakeUrl: string) => `${fakeUrl}/openai${publicBasePath.openai ?? '/v1'}`;

async function withService<T>(name: string, fakeUrl: string, use: (service: Proc, personaId: string) => Promise<T>): Promise<T> {
  const database = freshSqlite();
  try {
    const service = await startService({ name, databaseUrl: database.url, apiKey: API_KEY, env: { PROVIDER_BASE_URL_OPENAI: openaiBaseUrl(fakeUrl) } });
    try {
      const [personaId] = await seedPersonas(service.url, 1);
      return await use(service, personaId!);
    } finally {
      await service.stop();
    }
  } finally {
    await database.drop();
  }
}

/**
 * What the service really puts on the wire for this persona and content: one refine through
 * the service against a recording fake. Also proves a refine is exactly one provider call.
 */
async function captureProviderRequest(): Promise<{ path: string; body: string }> {
  const recorder = await startFakeProviderServer({ record: true });
  try {
    return await withService('refine-capture', recorder.url, async (service, personaId) => {
      const response = await fetch(`${service.url}/v1/refine`, { method: 'POST', headers: JSON_AUTH, body: refineBody(personaId) });
      if (response.status !== 200) throw new Error(`capture refine failed: ${response.status} ${await response.text()}`);
      if (recorder.requests.length !== 1) throw new Error(`a refine made ${recorder.requests.length} provider calls, expected 1 (repair call?)`);
      const [recorded] = recorder.requests;
      return { path: recorded!.path, body: JSON.stringify(recorded!.body) };
    });
  } finally {
    await recorder.close();
  }
}

interface Pair {
  rate: number;
  direct: Latency;
  through: Latency;
}

async function measurePair(direct: Target, through: Target, rate: number, s: Settings): Promise<Pair> {
  if (s.warmupSeconds > 0) {
    await openLoop(direct, rate, s.warmupSeconds, SOCKETS);
    await openLoop(through, rate, s.warmupSeconds, SOCKETS);
  }
  return { rate, direct: await openLoop(direct, rate, s.seconds, SOCKETS), through: await openLoop(through, rate, s.seconds, SOCKETS) };
}

/**
 * Kept up: answered (nearly) everything at the rate with CPU to spare. Above ~90% of its one
 * core the event loop builds a queue and the figures measure queueing, not the service.
 */
const sustained = (pair: Pair) =>
  pair.through.achievedRate >= pair.rate * 0.95 &&
  pair.through.failed <= pair.through.sent * 0.001 &&
  (!Number.isFinite(pair.through.cpuUs) || (pair.through.cpuUs * pair.rate) / 1e6 < 0.9);

function describe(l: Latency): string {
  return `p50 ${ms(l.p50)}, p90 ${ms(l.p90)}, p99 ${ms(l.p99)}; ${perSecond(l.achievedRate)} achieved, ${l.failed} failed of ${l.sent}; ${cpu(l.cpuUs)}`;
}

function pairRows(pair: Pair, judge: boolean): Row[] {
  const at = `at ${perSecond(pair.rate)}`;
  const added = (p: 'p50' | 'p90' | 'p99') => pair.through[p] - pair.direct[p];
  const rows: Row[] = [
    info(SCENARIO, `fake provider directly ${at}`, describe(pair.direct)),
    info(SCENARIO, `through POST /v1/refine ${at}`, describe(pair.through)),
  ];
  if (judge) {
    rows.push(
      judged(SCENARIO, `added p50 ${at}`, added('p50'), ms(added('p50')), { atMost: 0.5, text: '≤ 0.5 ms' }),
      info(SCENARIO, `added p90 ${at}`, ms(added('p90'))),
      judged(SCENARIO, `added p99 ${at}`, added('p99'), ms(added('p99')), { atMost: 1, text: '≤ 1 ms' }),
    );
  } else {
    rows.push(info(SCENARIO, `added p50 / p90 / p99 ${at}`, `${ms(added('p50'))} / ${ms(added('p90'))} / ${ms(added('p99'))}`));
  }
  return rows;
}

export async function refine(s: Settings): Promise<ScenarioResult> {
  const captured = await captureProviderRequest();
  const fake = await startFakeProvider(0);
  try {
    return await withService('refine', fake.url, async (service, personaId) => {
      const direct: Target = {
        url: `${fake.url}${captured.path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_KEY}` },
        body: captured.body,
        pid: fake.pid,
      };
      const through: Target = { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body: refineBody(personaId), pid: service.pid };
      const notes = [
        `Refine latencies come from an open-loop generator (request i starts at i/rate over ${SOCKETS} keep-alive sockets), not autocannon's overallRate, which sends each connection's per-second quota in one burst.`,
        `The direct calls send the exact body the service sent the provider for this persona (${captured.body.length} bytes, captured from a recording fake).`,
      ];
      const full = await measurePair(direct, through, TARGET_RATE, s);
      ensureAlive(fake, service);
      const rows = pairRows(full, true);
      // CPU per refine × rate = how busy the service's one event loop is; near 100% every request queues.
      const busy = (full.through.cpuUs * TARGET_RATE) / 1e6;
      rows.push(info(SCENARIO, `service CPU per refine → one core busy at ${perSecond(TARGET_RATE)}`, `${cpu(full.through.cpuUs)} → ${(busy * 100).toFixed(0)}%`));
      // Near saturation, queueing swamps the added latency, so it is also measured at a comfortable
      // rate: 250/s, or half the most the service managed if it could not keep up with 1,000/s.
      let rate = FALLBACK_RATE;
      if (!sustained(full)) {
        const max = await closedLoop(through, SOCKETS, Math.max(1, s.seconds / 2), 0);
        rate = Math.max(10, Math.min(FALLBACK_RATE, Math.floor(max.rps / 20) * 10));
        notes.push(`The service did NOT keep up with ${perSecond(TARGET_RATE)} refines (${perSecond(full.through.achievedRate)} answered, ${full.through.failed} failed, one core ${((full.through.cpuUs * TARGET_RATE) / 1e4).toFixed(0)}% busy, median ${ms(full.through.p50)}); also measured at ${perSecond(rate)}.`);
        rows.push(info(SCENARIO, `keeps up with ${perSecond(TARGET_RATE)} (< 90% of a core, ≤ 0.1% failed)?`, 'NO — see the next rows'));
        rows.push(info(SCENARIO, `most refines/s, closed loop, ${SOCKETS} connections`, `${perSecond(max.rps)}${max.failed ? ` (${max.failed} failed: ${JSON.stringify(max.statusCodes)})` : ''}`));
      }
      rows.push(...pairRows(await measurePair(direct, through, rate, s), false));
      ensureAlive(fake, service);
      if (full.through.lateStartP99 > 5 || full.direct.lateStartP99 > 5) {
        notes.push(`The load generator started requests up to ${ms(Math.max(full.through.lateStartP99, full.direct.lateStartP99))} late (p99): the machine was busy.`);
      }
      return { rows, notes };
    });
  } finally {
    await fake.stop();
  }
}
