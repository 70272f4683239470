/**
 * Refine against the least a Node service can do, in the same run:
 * - the same instant fake provider called directly, at a fixed rate: through − direct is the
 *   latency the service adds;
 * - a bare Fastify + undici proxy (bench/bare-proxy-server.ts) in front of the same fake: the
 *   ceiling for refine's saturated throughput and its CPU time per request.
 * Each comparison runs `runs` rounds (the three targets alternate within a round, so drift in
 * what the neighbours do hits them alike) and the median round's figure is reported.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { publicBasePath } from '../../test/fakes/provider-wire-formats.js';
import { API_KEY, type Database, JSON_AUTH, PROVIDER_KEY, REFINE_PERSONA, freshSqlite, refineBody, seedPersonas } from '../fixtures.js';
import { type Latency, type Target, type Throughput, closedLoop, median, medianRound, openLoop } from '../load.js';
import { type Proc, RESULTS_DIR, ensureAlive, startBareProxy, startFakeProvider, startService } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, judged, latency, ms, percent, perSecond } from '../report.js';
import type { Settings } from '../settings.js';

const SCENARIO = 'Refine';
/** Round 4's rate (issue 41): one the service keeps up with, so the added latency is the service's, not a queue's. */
export const TARGET_RATE = 500;
export const SOCKETS = 50;

export const openaiBaseUrl = (fakeUrl: string) => `${fakeUrl}/openai${publicBasePath.openai ?? '/v1'}`;

export interface ServiceSetup {
  /** A fresh SQLite file unless given. */
  database?: Database;
  env?: Record<string, string>;
}

/**
 * The service as users run it (JSON log lines on, as in a container), one persona seeded
 * (REFINE_PERSONA unless given), in front of the fake at `fakeUrl`.
 */
export async function withService<T>(name: string, fakeUrl: string, use: (service: Proc, personaId: string) => Promise<T>, setup: ServiceSetup = {}, persona = REFINE_PERSONA): Promise<T> {
  const database = setup.database ?? freshSqlite();
  try {
    const service = await startService({ name, databaseUrl: database.url, apiKey: API_KEY, env: { LOG_FORMAT: 'json', PROVIDER_BASE_URL_OPENAI: openaiBaseUrl(fakeUrl), ...setup.env } });
    try {
      const [personaId] = await seedPersonas(service.url, 1, persona);
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
export async function captureProviderRequest(): Promise<{ path: string; body: string }> {
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

interface Round {
  direct: Latency;
  through: Latency;
  bare: Latency;
  refineMax: Throughput;
  bareMax: Throughput;
}

const describeMax = (t: Throughput) => `${perSecond(t.rps)}, ${cpu(t.cpuUs)}${t.failed > 0 ? ` (${t.failed} failed: ${JSON.stringify(t.statusCodes)})` : ''}`;

/** Kept up: answered (nearly) everything at the rate, with CPU to spare (above ~90% of a core the figures measure a queue). */
export const keptUp = (l: Latency, rate: number) => l.achievedRate >= rate * 0.95 && l.failed <= l.sent * 0.001 && (!Number.isFinite(l.cpuUs) || (l.cpuUs * rate) / 1e6 < 0.9);

export async function refine(s: Settings): Promise<ScenarioResult> {
  const captured = await captureProviderRequest();
  const capturedFile = join(RESULTS_DIR, 'captured-provider-body.json');
  writeFileSync(capturedFile, captured.body);
  const fake = await startFakeProvider(0);
  const proxy = await startBareProxy(`${fake.url}${captured.path}`, capturedFile);
  try {
    return await withService('refine', fake.url, async (service, personaId) => {
      const body = refineBody(personaId);
      const direct: Target = {
        url: `${fake.url}${captured.path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_KEY}` },
        body: captured.body,
        pid: fake.pid,
      };
      // What the SDK sends: a fresh Idempotency-Key on every POST.
      const through: Target = { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body, pid: service.pid, idempotent: true };
      const bare: Target = { url: `${proxy.url}/refine`, method: 'POST', headers: { 'content-type': 'application/json' }, body, pid: proxy.pid };
      if (s.warmupSeconds > 0) {
        for (const target of [direct, through, bare]) await openLoop(target, TARGET_RATE, s.warmupSeconds, SOCKETS);
      }
      const rounds: Round[] = [];
      for (let i = 0; i < s.runs; i++) {
        const round: Round = {
          direct: await openLoop(direct, TARGET_RATE, s.seconds, SOCKETS),
          through: await openLoop(through, TARGET_RATE, s.seconds, SOCKETS),
          bare: await openLoop(bare, TARGET_RATE, s.seconds, SOCKETS),
          refineMax: await closedLoop(through, s.saturationConnections, s.seconds, 0),
          bareMax: await closedLoop(bare, s.saturationConnections, s.seconds, 0),
        };
        ensureAlive(fake, proxy, service);
        rounds.push(round);
      }
      const at = `at ${perSecond(TARGET_RATE)}`;
      const of = s.runs > 1 ? `, median of ${s.runs}` : '';
      const addedP50 = (r: Round) => r.through.p50 - r.direct.p50;
      const addedP99 = (r: Round) => r.through.p99 - r.direct.p99;
      const cpuRatio = (r: Round) => r.through.cpuUs / r.bare.cpuUs;
      const maxRatio = (r: Round) => r.refineMax.rps / r.bareMax.rps;
      const typical = medianRound(rounds, addedP50);
      const rows: Row[] = [
        info(SCENARIO, `fake provider directly ${at}`, latency(typical.direct)),
        info(SCENARIO, `through POST /v1/refine ${at} (SDK path: Idempotency-Key, persona with rules)`, latency(typical.through)),
        info(SCENARIO, `bare Fastify + undici proxy ${at}`, latency(typical.bare)),
        judged(SCENARIO, `added p50 ${at}${of}`, median(rounds.map(addedP50)), ms(median(rounds.map(addedP50))), { atMost: 0.5, text: '≤ 0.5 ms' }),
        judged(SCENARIO, `added p99 ${at}${of}`, median(rounds.map(addedP99)), ms(median(rounds.map(addedP99))), { atMost: 2, text: '≤ 2 ms' }),
      ];
      const cpuRound = medianRound(rounds, cpuRatio);
      rows.push(
        judged(SCENARIO, `CPU per request ${at}: refine ÷ bare proxy${of}`, cpuRatio(cpuRound), `${(cpuRatio(cpuRound)).toFixed(2)}× (${cpu(cpuRound.through.cpuUs)} vs ${cpu(cpuRound.bare.cpuUs)})`, { atMost: 2.5, text: '≤ 2.5×' }),
      );
      const maxRound = medianRound(rounds, maxRatio);
      rows.push(
        info(SCENARIO, `saturated, ${s.saturationConnections} connections: refine`, describeMax(maxRound.refineMax)),
        info(SCENARIO, `saturated, ${s.saturationConnections} connections: bare proxy`, describeMax(maxRound.bareMax)),
        judged(SCENARIO, `saturated throughput: refine ÷ bare proxy${of}`, maxRatio(maxRound), percent(maxRatio(maxRound)), { atLeast: 0.75, text: '≥ 75%' }),
      );
      const notes = [
        `Refine latencies come from an open-loop generator (request i starts at i/rate over ${SOCKETS} keep-alive sockets), not autocannon's overallRate, which sends each connection's per-second quota in one burst.`,
        `The direct calls send the exact body the service sent the provider for this persona (${captured.body.length} bytes, captured from a recording fake); the bare proxy sends the same model and system prompt with the caller's content.`,
      ];
      const behind = rounds.filter((r) => !keptUp(r.through, TARGET_RATE)).length;
      if (behind > 0) {
        notes.push(`In ${behind} of ${s.runs} rounds the service did NOT keep up with ${perSecond(TARGET_RATE)} refines (< 95% answered, > 0.1% failed or > 90% of a core): its latency figures there measure a queue.`);
      }
      const late = Math.max(...rounds.map((r) => Math.max(r.through.lateStartP99, r.direct.lateStartP99)));
      if (late > 5) notes.push(`The load generator started requests up to ${ms(late)} late (p99): the machine was busy.`);
      return { rows, notes };
    });
  } finally {
    await proxy.stop();
    await fake.stop();
  }
}
