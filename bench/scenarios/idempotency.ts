/**
 * What an `Idempotency-Key` costs a refine: the same refine (persona with rules, instant fake)
 * at 500/s, open loop, with a fresh key on every request (as the SDK sends it) and without
 * one, rounds alternating, on one engine. A key costs two writes per refine: the row that
 * claims it before the provider is called, and the stored answer before the answer leaves.
 */
import { existsSync, statSync } from 'node:fs';
import { type Database, freshPostgres, freshSqlite, JSON_AUTH, refineBody } from '../fixtures.js';
import { type Latency, type Target, median, medianRound, openLoop } from '../load.js';
import { ensureAlive, startFakeProvider } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, judged, latency, mb, ms, perSecond, skipped } from '../report.js';
import type { Settings } from '../settings.js';
import { SOCKETS, withService } from './refine.js';

const RATE = 500;

interface Round {
  without: Latency;
  with: Latency;
}

export async function idempotency(s: Settings, storage: 'sqlite' | 'postgres'): Promise<ScenarioResult> {
  const scenario = storage === 'sqlite' ? 'Idempotency-Key (SQLite)' : 'Idempotency-Key (PostgreSQL)';
  const database: Database | undefined = storage === 'sqlite' ? freshSqlite() : await freshPostgres();
  if (!database) return { rows: [skipped(scenario, '*** SKIPPED: PostgreSQL not reachable at 127.0.0.1:5432')], notes: [] };
  const fake = await startFakeProvider(0);
  try {
    return await withService(`idempotency-${storage}`, fake.url, async (service, personaId) => {
      const without: Target = { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body: refineBody(personaId), pid: service.pid };
      const withKey: Target = { ...without, idempotent: true };
      if (s.warmupSeconds > 0) for (const target of [without, withKey]) await openLoop(target, RATE, s.warmupSeconds, SOCKETS);
      // SQLite: the WAL after each keyed run, when writes have not paused for seconds (it once grew without end).
      const wal = storage === 'sqlite' ? `${database.url.replace(/^sqlite:/, '')}-wal` : undefined;
      let largestWal = 0;
      const noteWal = () => {
        if (wal && existsSync(wal)) largestWal = Math.max(largestWal, statSync(wal).size);
      };
      const rounds: Round[] = [];
      for (let i = 0; i < s.runs; i++) {
        // Which goes first alternates too: a run right after another inherits its garbage.
        const [first, second] = i % 2 === 0 ? [without, withKey] : [withKey, without];
        const a = await openLoop(first, RATE, s.seconds, SOCKETS);
        if (first === withKey) noteWal();
        const b = await openLoop(second, RATE, s.seconds, SOCKETS);
        if (second === withKey) noteWal();
        ensureAlive(fake, service);
        rounds.push(first === without ? { without: a, with: b } : { without: b, with: a });
      }
      const of = s.runs > 1 ? `, median of ${s.runs}` : '';
      const at = `at ${perSecond(RATE)}`;
      const extraCpu = (r: Round) => r.with.cpuUs / r.without.cpuUs - 1;
      const extraP99 = (r: Round) => r.with.p99 - r.without.p99;
      const cpuRound = medianRound(rounds, extraCpu);
      const cpuMiddle = extraCpu(cpuRound);
      const p99Round = medianRound(rounds, extraP99);
      const p99Middle = extraP99(p99Round);
      const rows: Row[] = [
        info(scenario, `refine without a key ${at}`, latency(p99Round.without)),
        info(scenario, `refine with a fresh Idempotency-Key each ${at}`, latency(p99Round.with)),
        judged(scenario, `CPU per refine a key adds ${at}${of}`, cpuMiddle, `${cpuMiddle >= 0 ? '+' : ''}${(cpuMiddle * 100).toFixed(1)}% (${cpu(cpuRound.with.cpuUs)} vs ${cpu(cpuRound.without.cpuUs)})`, { atMost: 0.1, text: '≤ +10%' }),
        judged(scenario, `p99 a key adds ${at}${of}`, p99Middle, `${p99Middle >= 0 ? '+' : ''}${ms(p99Middle)}`, { atMost: 1, text: '≤ +1 ms' }),
        info(scenario, `p50 a key adds ${at}${of}`, `${ms(median(rounds.map((r) => r.with.p50 - r.without.p50)))}`),
      ];
      // Past 1 GiB the checkpointer makes it start over (src/storage/database.ts): far beyond a run this long.
      if (wal) rows.push(info(scenario, `largest WAL after a keyed run (${s.seconds} s of writes that never pause)`, mb(largestWal)));
      return { rows, notes: [] };
    }, { database });
  } finally {
    await fake.stop();
  }
}
