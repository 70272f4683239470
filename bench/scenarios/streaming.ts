/**
 * Many streams at once: N concurrent streaming refines, each on its own connection,
 * against a fake provider that streams its answer over 10 s. Every stream must end with
 * `done`; the service's memory (whole process tree) and its event-loop delay (probed
 * inside the service every second) are recorded while they run.
 */
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_KEY, CONTENT, JSON_AUTH, PROVIDER_KEY, freshSqlite } from '../fixtures.js';
import { EVENT_LOOP_PROBE, ensureAlive, sampleRss, startFakeProvider, startService, treeCpuSeconds, treeRssBytes } from '../processes.js';
import { type ScenarioResult, info, judged, mb } from '../report.js';
import type { Settings } from '../settings.js';

const SCENARIO = 'Many streams';
const PIECE_CHARS = 6;
/** Clients arrive over this long (1,000 a second for 2,000 streams). */
const RAMP_MS = 2_000;

/** A persona whose vocabulary and casing the answer breaks, so every stream fixes words in flight. */
const STREAM_PERSONA = {
  name: 'Streaming support',
  attributes: {
    tone: 'warm, direct',
    vocabulary: { order: 'purchase', package: 'parcel', 'distribution center': 'warehouse' },
    casing: ['Acme'],
    signOff: 'Cheers,\nThe Acme team',
  },
};

interface StreamOutcome {
  status: number;
  lastEvent: string;
}

/** One streaming refine over a fresh connection; resolves with its status and its last event's name. */
function streamOnce(url: URL, body: string, timeoutMs: number): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { ...JSON_AUTH, 'content-length': Buffer.byteLength(body) }, agent: false, timeout: timeoutMs }, (res) => {
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        tail = (tail + chunk).slice(-4096);
      });
      res.on('end', () => {
        const events = [...tail.matchAll(/^event: (\w+)$/gm)];
        resolve({ status: res.statusCode ?? 0, lastEvent: events.at(-1)?.[1] ?? 'none' });
      });
      res.on('error', () => resolve({ status: res.statusCode ?? 0, lastEvent: 'cut' }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, lastEvent: `connection error ${error.code ?? error.message}` }));
    req.end(body);
  });
}

export async function streaming(s: Settings): Promise<ScenarioResult> {
  // BENCH_STREAMS scales the run (200, 500, 1,000…) to see where the time goes.
  const streams = Number(process.env.BENCH_STREAMS ?? s.inFlight);
  const streamSeconds = s.quick ? 1 : 10;
  const pieces = Math.ceil(CONTENT.length / PIECE_CHARS);
  // Whole events, one write each, as a provider sends them: the fake's default of two writes
  // per event (to split characters in tests) doubled the fake's and the service's reads.
  const fake = await startFakeProvider(0, { mode: 'ok', reply: CONTENT, pieceChars: PIECE_CHARS, pieceDelayMs: Math.round((streamSeconds * 1000) / pieces), wholeEvents: true });
  const database = freshSqlite();
  const probeDir = mkdtempSync(join(tmpdir(), 'event-loop-'));
  const probeFile = join(probeDir, 'delay.jsonl');
  try {
    const service = await startService({
      name: 'streaming',
      databaseUrl: database.url,
      apiKey: API_KEY,
      env: {
        PROVIDER_BASE_URL_OPENAI: `${fake.url}/openai/v1`,
        MAX_CONCURRENT_REFINES_PER_ACCOUNT: '5000',
        NODE_OPTIONS: `--import ${EVENT_LOOP_PROBE}`,
        EVENT_LOOP_PROBE_FILE: probeFile,
      },
    });
    try {
      const created = await fetch(`${service.url}/v1/personas`, { method: 'POST', headers: JSON_AUTH, body: JSON.stringify(STREAM_PERSONA) });
      const { id: personaId } = (await created.json()) as { id: string };
      const body = JSON.stringify({ provider: 'openai', providerApiKey: PROVIDER_KEY, personaId, content: CONTENT, stream: true });
      const idleRss = treeRssBytes(service.pid);
      const rss = sampleRss(service.pid, 100);
      const cpuBefore = { service: treeCpuSeconds(service.pid), fake: treeCpuSeconds(fake.pid), client: process.cpuUsage() };
      const started = Date.now();
      // Clients arrive over RAMP_MS (1,000 a second), not in one instant: then all of them stream
      // at once for most of the streams' 10 s, and that stretch is what the delay target judges.
      const rampMs = s.quick ? 0 : RAMP_MS;
      const outcomes = await Promise.all(
        Array.from({ length: streams }, (_, i) =>
          new Promise((resolve) => setTimeout(resolve, (i * rampMs) / streams)).then(() =>
            streamOnce(new URL(`${service.url}/v1/refine`), body, (streamSeconds + 60) * 1000),
          ),
        ),
      );
      const seconds = (Date.now() - started) / 1000;
      const peakRss = rss.stop();
      // CPU per stream of each process: the fake and this runner must stay well below the service.
      const perStream = (seconds: number) => `${((seconds * 1000) / streams).toFixed(1)} ms`;
      const clientCpu = process.cpuUsage(cpuBefore.client);
      const cpuPerStream = `service ${perStream(treeCpuSeconds(service.pid) - cpuBefore.service)}, fake provider ${perStream(treeCpuSeconds(fake.pid) - cpuBefore.fake)}, load generator ${perStream((clientCpu.user + clientCpu.system) / 1e6)}`;
      ensureAlive(fake, service);
      // The probe writes once a second: let it write the burst's last second.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const delays = readFileSync(probeFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { t: number; p99: number; max: number })
        .filter((line) => line.t >= started && line.t <= started + seconds * 1000 + 1_000) as { t: number; p50: number; p99: number; max: number }[];
      const done = outcomes.filter((o) => o.status === 200 && o.lastEvent === 'done').length;
      const others = new Map<string, number>();
      for (const o of outcomes) if (o.lastEvent !== 'done') others.set(`${o.status}/${o.lastEvent}`, (others.get(`${o.status}/${o.lastEvent}`) ?? 0) + 1);
      const p99 = Math.max(0, ...delays.map((d) => d.p99));
      const max = Math.max(0, ...delays.map((d) => d.max));
      // All streams open: from a second after the last client arrived to when the first could end.
      const together = delays.filter((d) => d.t >= started + rampMs + 1_000 && d.t <= started + streamSeconds * 1000);
      const togetherP99 = together.length > 0 ? Math.max(...together.map((d) => d.p99)) : Number.NaN;
      const togetherP50 = together.length > 0 ? Math.max(...together.map((d) => d.p50)) : Number.NaN;
      return {
        rows: [
          judged(SCENARIO, `${streams} concurrent streaming refines, provider streams for ${streamSeconds} s: ended with done`, done, `${done} / ${streams}${others.size ? ` (${[...others].map(([k, n]) => `${k}×${n}`).join(', ')})` : ''}`, { atLeast: streams, text: 'all end with done' }),
          judged(SCENARIO, 'peak RSS of the service during the streams', peakRss, mb(peakRss), { atMost: 400 * 1024 * 1024, text: '≤ 400 MB' }),
          info(SCENARIO, 'RSS when idle, before the streams', mb(idleRss)),
          // The worst second's p99, not the p99 of the whole stretch: a stricter reading of the target.
          judged(SCENARIO, `event-loop delay while all ${streams} stream: worst per-second p99 (${together.length} s)`, togetherP99, `${togetherP99.toFixed(1)} ms`, { atMost: 20, text: '≤ 20 ms' }),
          info(SCENARIO, `event-loop delay while all ${streams} stream: worst per-second p50`, `${togetherP50.toFixed(1)} ms`),
          info(SCENARIO, 'event-loop delay over the whole run, arrivals included: worst per-second p99', `${p99.toFixed(1)} ms`),
          info(SCENARIO, 'event-loop delay during the streams: max', `${max.toFixed(1)} ms`),
          info(SCENARIO, 'wall time for all streams', `${seconds.toFixed(1)} s`),
          info(SCENARIO, 'CPU per stream', cpuPerStream),
        ],
        notes: [`Many streams: clients arrive over ${rampMs / 1000} s; ${pieces} pieces of ${PIECE_CHARS} characters per answer, every word checked against the persona's vocabulary and casing in flight; MAX_CONCURRENT_REFINES_PER_ACCOUNT=5000.`],
      };
    } finally {
      await service.stop();
    }
  } finally {
    await fake.stop();
    await database.drop();
    rmSync(probeDir, { recursive: true, force: true });
  }
}
