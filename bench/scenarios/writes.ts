/**
 * Writes on SQLite and the event loop: 500 writes a second — persona PATCHes and idempotent
 * refines, half each, both with a fresh Idempotency-Key as the SDK sends them — open loop,
 * while a probe inside the service (bench/event-loop-probe.ts) records how late its event
 * loop ran. A disk sync on the loop shows here as a delay of its own length.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSON_AUTH, refineBody } from '../fixtures.js';
import { type Latency, type Target, medianRound, openLoop } from '../load.js';
import { EVENT_LOOP_PROBE, ensureAlive, startFakeProvider } from '../processes.js';
import { type Row, type ScenarioResult, info, judged, ms, perSecond } from '../report.js';
import type { Settings } from '../settings.js';
import { SOCKETS, withService } from './refine.js';

const SCENARIO = 'Writes (SQLite)';
const RATE = 500;

interface Delay {
  t: number;
  p50: number;
  p99: number;
  max: number;
  window?: true;
}

interface Round {
  patches: Latency;
  refines: Latency;
  window: Delay;
  worstSecond: number;
}

export async function writes(s: Settings): Promise<ScenarioResult> {
  const fake = await startFakeProvider(0);
  const probeDir = mkdtempSync(join(tmpdir(), 'event-loop-'));
  const probeFile = join(probeDir, 'delay.jsonl');
  const lines = () => readFileSync(probeFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Delay);
  try {
    return await withService('writes', fake.url, async (service, personaId) => {
      const patch: Target = { url: `${service.url}/v1/personas/${personaId}`, method: 'PATCH', headers: JSON_AUTH, body: JSON.stringify({ name: 'Friendly support (EU)' }), pid: service.pid, idempotent: true };
      // Not charged to the service's pid: both runs share it, and CPU is not what this scenario judges.
      const refine: Target = { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body: refineBody(personaId), idempotent: true };
      const both = () => Promise.all([openLoop({ ...patch, pid: undefined }, RATE / 2, s.seconds, SOCKETS), openLoop(refine, RATE / 2, s.seconds, SOCKETS)]);
      if (s.warmupSeconds > 0) {
        await Promise.all([openLoop({ ...patch, pid: undefined }, RATE / 2, s.warmupSeconds, SOCKETS), openLoop(refine, RATE / 2, s.warmupSeconds, SOCKETS)]);
      }
      const rounds: Round[] = [];
      for (let i = 0; i < s.runs; i++) {
        const started = Date.now();
        process.kill(service.pid, 'SIGUSR2'); // starts the probe's window
        const [patches, refines] = await both();
        process.kill(service.pid, 'SIGUSR2'); // …and ends it
        // The probe writes per-second lines once a second: let it write the last one.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        ensureAlive(fake, service);
        const all = lines();
        const window = all.filter((line) => line.window).at(-1)!;
        const seconds = all.filter((line) => !line.window && line.t > started + 1_000 && line.t <= window.t);
        rounds.push({ patches, refines, window, worstSecond: Math.max(0, ...seconds.map((line) => line.p99)) });
      }
      const of = s.runs > 1 ? `, median of ${s.runs}` : '';
      const typical = medianRound(rounds, (r) => r.window.p99);
      const p99 = typical.window.p99;
      const describe = (l: Latency) => `p50 ${ms(l.p50)}, p99 ${ms(l.p99)}; ${perSecond(l.achievedRate)} achieved, ${l.failed} failed of ${l.sent}`;
      const rows: Row[] = [
        info(SCENARIO, `PATCH /v1/personas/{id} at ${perSecond(RATE / 2)}, Idempotency-Key each`, describe(typical.patches)),
        info(SCENARIO, `POST /v1/refine at ${perSecond(RATE / 2)}, Idempotency-Key each`, describe(typical.refines)),
        judged(SCENARIO, `service's event-loop delay p99 during ${perSecond(RATE)} writes${of}`, p99, ms(p99), { atMost: 5, text: '≤ 5 ms' }),
        info(SCENARIO, 'event-loop delay in the same run: p50, max, worst one-second p99', `${ms(typical.window.p50)}, ${ms(typical.window.max)}, ${ms(typical.worstSecond)}`),
      ];
      return {
        rows,
        notes: [`Writes: the event-loop delay is measured inside the service (monitorEventLoopDelay at 1 ms resolution, the resolution itself subtracted) over each ${s.seconds} s run.`],
      };
    }, { env: { NODE_OPTIONS: `--import ${EVENT_LOOP_PROBE}`, EVENT_LOOP_PROBE_FILE: probeFile } });
  } finally {
    await fake.stop();
    rmSync(probeDir, { recursive: true, force: true });
  }
}
