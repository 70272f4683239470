/**
 * What webhooks add to a persona write, on SQLite. PATCH /v1/personas/{id} open loop at a fixed
 * rate (Idempotency-Key each, as the SDK sends it), round after round in the same service:
 * first with no webhook endpoint, then with five subscribed to "*" on a loopback receiver that
 * answers 204 at once (bench/webhook-receiver-process.ts), deleted again after the run.
 * - CPU per write: the service's CPU from the first PATCH until the receiver has every delivery
 *   and the service has recorded them, over the PATCHes sent: the deliveries are its work too.
 * - Event to receiver: from the PATCH's answer reaching the client to its delivery reaching the
 *   receiver, matched by the persona version (the answer's ETag, the delivery's data.version);
 *   every delivery counts (five per PATCH).
 * - A refine writes no event: refines at the same rate, without and with the endpoints, show
 *   that their existence costs it nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { API_KEY, AUTH, JSON_AUTH, REFINE_PERSONA, freshSqlite, refineBody, seedPersonas } from '../fixtures.js';
import { type Latency, type Target, medianRound, openLoop, percentile } from '../load.js';
import { type Proc, ensureAlive, startFakeProvider, startService, startWebhookReceiver, treeCpuSeconds } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, judged, latency, ms, perSecond } from '../report.js';
import type { Settings } from '../settings.js';
import type { Arrivals } from '../webhook-receiver-process.js';
import { SOCKETS, openaiBaseUrl } from './refine.js';

const SCENARIO = 'Webhooks (SQLite)';
const RATE = 200;
/** One run at a quarter of the rate: what an event waits for when fewer deliveries queue. */
const LIGHT_RATE = 50;
const ENDPOINTS = 5;
/** How long the receiver may wait for a run's last delivery: past it, what is missing is reported missing. */
const DRAIN_TIMEOUT_MS = 60_000;

interface Run {
  latency: Latency;
  /** Service CPU per PATCH sent, deliveries included, in µs. */
  cpuUs: number;
}

interface Deliveries {
  /** Answer → receiver, ms, sorted: every delivery, and the last of each event's five. */
  each: Float64Array;
  lastOfEvent: Float64Array;
  expected: number;
  duplicates: number;
  /** Attempts that failed (retried or given up) during the run, from /metrics. */
  notDelivered: number;
  /** From the last PATCH's answer to the last delivery. */
  drainMs: number;
  /** Deliveries received per second, from the first PATCH sent to the last delivery received. */
  perSecond: number;
}

interface Round {
  plain: Run;
  hooked: Run;
  deliveries: Deliveries;
  /** Refines at the same rate (no outbox on their path), without and with the endpoints. */
  plainRefine: Latency;
  hookedRefine: Latency;
}

/** The receiver's arrivals once `count` have come (or at the timeout); it forgets them. */
async function collect(receiver: ChildProcess, count: number): Promise<Arrivals> {
  const reply = once(receiver, 'message') as Promise<[Arrivals]>;
  receiver.send({ collect: count, timeoutMs: DRAIN_TIMEOUT_MS });
  return (await reply)[0];
}

/** persona_refine_webhook_attempts_total by outcome. */
async function attempts(service: Proc): Promise<Record<string, number>> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, outcome, value] of text.matchAll(/^persona_refine_webhook_attempts_total\{outcome="(\w+)"\} (\d+)/gm)) counts[outcome!] = Number(value);
  return counts;
}

async function request(url: string, method: string, body?: unknown): Promise<unknown> {
  const response = await fetch(url, { method, headers: body === undefined ? AUTH : JSON_AUTH, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

export async function webhooks(s: Settings): Promise<ScenarioResult> {
  const receiver = await startWebhookReceiver();
  const fake = await startFakeProvider(0);
  const database = freshSqlite();
  try {
    const service = await startService({
      name: 'webhooks',
      databaseUrl: database.url,
      apiKey: API_KEY,
      env: { LOG_FORMAT: 'json', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', PROVIDER_BASE_URL_OPENAI: openaiBaseUrl(fake.url) },
    });
    try {
      const [personaId] = await seedPersonas(service.url, 1);
      const [refinePersonaId] = await seedPersonas(service.url, 1, REFINE_PERSONA);
      const patch: Target = { url: `${service.url}/v1/personas/${personaId}`, method: 'PATCH', headers: JSON_AUTH, body: JSON.stringify({ name: 'Friendly support (EU)' }), idempotent: true };
      const refine: Target = { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body: refineBody(refinePersonaId!), idempotent: true, pid: service.pid };
      // The attempt counters are the service's totals: each run's share is what they grew by.
      let counted = { delivered: 0, notDelivered: 0 };

      const withEndpoints = async <T>(use: () => Promise<T>): Promise<T> => {
        const endpoints = await Promise.all(
          Array.from({ length: ENDPOINTS }, (_, i) => request(`${service.url}/v1/webhooks`, 'POST', { url: `${receiver.url}/hooks/${i}`, events: ['*'] }) as Promise<{ id: string }>),
        );
        try {
          return await use();
        } finally {
          for (const endpoint of endpoints) await request(`${service.url}/v1/webhooks/${endpoint.id}`, 'DELETE');
        }
      };

      /** PATCHes open loop; with endpoints, the run ends when the receiver has every delivery and the service has recorded each. */
      const writes = async (seconds: number, hooked: boolean, rate = RATE): Promise<Run & { deliveries?: Deliveries }> => {
        // Noted in both runs alike, so the load generator does the same work in each.
        const answeredAt = new Map<number, number>();
        const before = treeCpuSeconds(service.pid);
        const startedAt = performance.timeOrigin + performance.now();
        // The new version is the number in the answer's ETag.
        const latency = await openLoop(patch, rate, seconds, SOCKETS, (headers, at) => answeredAt.set(Number(headers.etag?.replace(/"/g, '')), at));
        if (!hooked) {
          await attempts(service);
          const cpuUs = ((treeCpuSeconds(service.pid) - before) * 1e6) / latency.sent;
          ensureAlive(service, receiver);
          return { latency, cpuUs };
        }
        const expected = latency.ok * ENDPOINTS;
        const arrivals = await collect(receiver.child, expected);
        // The receiver has them; the service records each a moment after its answer.
        let counts = await attempts(service);
        for (let i = 0; i < 50 && (counts.delivered ?? 0) < counted.delivered + arrivals.versions.length; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          counts = await attempts(service);
        }
        const cpuUs = ((treeCpuSeconds(service.pid) - before) * 1e6) / latency.sent;
        ensureAlive(service, receiver);
        const each: number[] = [];
        const lastOfEvent = new Map<number, number>();
        for (let i = 0; i < arrivals.versions.length; i++) {
          const version = arrivals.versions[i]!;
          const answered = answeredAt.get(version);
          if (answered === undefined) continue;
          const delay = arrivals.at[i]! - answered;
          each.push(delay);
          lastOfEvent.set(version, Math.max(lastOfEvent.get(version) ?? -Infinity, delay));
        }
        const total = { delivered: counts.delivered ?? 0, notDelivered: (counts.retry ?? 0) + (counts.failed ?? 0) };
        const notDelivered = total.notDelivered - counted.notDelivered;
        counted = total;
        const deliveries: Deliveries = {
          each: Float64Array.from(each).sort(),
          lastOfEvent: Float64Array.from(lastOfEvent.values()).sort(),
          expected,
          duplicates: arrivals.duplicates,
          notDelivered,
          drainMs: Math.max(0, ...arrivals.at) - Math.max(0, ...answeredAt.values()),
          perSecond: arrivals.at.length / ((Math.max(0, ...arrivals.at) - startedAt) / 1000),
        };
        return { latency, cpuUs, deliveries };
      };
      const refines = async (seconds: number) => {
        const latency = await openLoop(refine, RATE, seconds, SOCKETS);
        ensureAlive(service, receiver, fake);
        return latency;
      };

      if (s.warmupSeconds > 0) {
        await writes(s.warmupSeconds, false);
        await refines(s.warmupSeconds);
        await withEndpoints(async () => {
          await writes(s.warmupSeconds, true);
          await refines(s.warmupSeconds);
        });
      }
      // Without and with alternate, round after round, so drift in what the neighbours do hits both alike.
      const rounds: Round[] = [];
      for (let i = 0; i < s.runs; i++) {
        const plain = await writes(s.seconds, false);
        const plainRefine = await refines(s.seconds);
        rounds.push(
          await withEndpoints(async () => {
            const { deliveries, ...hooked } = await writes(s.seconds, true);
            return { plain, hooked, deliveries: deliveries!, plainRefine, hookedRefine: await refines(s.seconds) };
          }),
        );
      }
      const light = await withEndpoints(() => writes(s.seconds, true, LIGHT_RATE));
      return report(s, rounds, light.deliveries!);
    } finally {
      await service.stop();
    }
  } finally {
    await receiver.stop();
    await fake.stop();
    await database.drop();
  }
}

function report(s: Settings, rounds: Round[], light: Deliveries): ScenarioResult {
  const of = s.runs > 1 ? `, median of ${s.runs}` : '';
  const describe = (r: Run) => `p50 ${ms(r.latency.p50)}, p99 ${ms(r.latency.p99)}; ${perSecond(r.latency.achievedRate)} achieved, ${r.latency.failed} failed of ${r.latency.sent}; ${cpu(r.cpuUs)}`;
  const cpuRatio = (r: Round) => r.hooked.cpuUs / r.plain.cpuUs;
  const addedP99 = (r: Round) => r.hooked.latency.p99 - r.plain.latency.p99;
  const addedP50 = (r: Round) => r.hooked.latency.p50 - r.plain.latency.p50;
  const missing = (r: Round) => r.deliveries.expected - r.deliveries.each.length;
  // Deliveries that never came rank as infinitely late: a percentile of only those that arrived would hide them.
  const late = (d: Deliveries, p: number) => {
    const rank = Math.ceil((p / 100) * d.expected);
    return rank < 1 ? Number.NaN : rank > d.each.length ? Infinity : d.each[rank - 1]!;
  };
  const eventP = (r: Round, p: number) => late(r.deliveries, p);
  const faults = (r: Round) => missing(r) + r.deliveries.duplicates + r.deliveries.notDelivered;
  const signed = (value: number) => `${value >= 0 ? '+' : ''}${ms(value)}`;

  const cpuRound = medianRound(rounds, cpuRatio);
  const p99Round = medianRound(rounds, addedP99);
  const eventRound = medianRound(rounds, (r) => eventP(r, 99));
  const d = eventRound.deliveries;
  const worstDelivery = rounds.reduce((worst, r) => (faults(r) > faults(worst) ? r : worst));
  const w = worstDelivery.deliveries;
  const rows: Row[] = [
    info(SCENARIO, `PATCH /v1/personas/{id} at ${perSecond(RATE)}, no webhook endpoint`, describe(cpuRound.plain)),
    info(SCENARIO, `PATCH /v1/personas/{id} at ${perSecond(RATE)}, ${ENDPOINTS} endpoints subscribed to "*" (CPU includes the deliveries)`, describe(cpuRound.hooked)),
    judged(SCENARIO, `CPU per write, ${ENDPOINTS} endpoints ÷ none, deliveries included${of}`, cpuRatio(cpuRound), `${cpuRatio(cpuRound).toFixed(2)}× (${cpu(cpuRound.hooked.cpuUs)} vs ${cpu(cpuRound.plain.cpuUs)})`, { atMost: 2.5, text: '≤ 2.5×' }),
    judged(SCENARIO, `p99 a write's ${ENDPOINTS} endpoints add at ${perSecond(RATE)}${of}`, addedP99(p99Round), `${signed(addedP99(p99Round))} (${ms(p99Round.hooked.latency.p99)} vs ${ms(p99Round.plain.latency.p99)})`, { atMost: 5, text: '≤ +5 ms' }),
    info(SCENARIO, `p50 a write's ${ENDPOINTS} endpoints add${of}`, signed(addedP50(medianRound(rounds, addedP50)))),
    judged(SCENARIO, `PATCH answered → delivery received, p99 of every delivery${of}`, eventP(eventRound, 99), ms(eventP(eventRound, 99)), { atMost: 100, text: '≤ 100 ms' }),
    info(SCENARIO, 'PATCH answered → delivery received, p50 of every delivery; last of its 5: p50, p99', `${ms(eventP(eventRound, 50))}; ${ms(percentile(d.lastOfEvent, 50))}, ${ms(percentile(d.lastOfEvent, 99))}`),
    info(SCENARIO, 'last PATCH answered → last delivery received; deliveries per second, first PATCH → last delivery', `${ms(d.drainMs)}; ${perSecond(d.perSecond)}`),
    info(
      SCENARIO,
      `at ${perSecond(LIGHT_RATE)} (${perSecond(LIGHT_RATE * ENDPOINTS)} deliveries), one run: PATCH answered → delivery received, p50, p99; received`,
      `${ms(late(light, 50))}, ${ms(late(light, 99))}; ${light.each.length} of ${light.expected}`,
    ),
    judged(
      SCENARIO,
      `deliveries received of those expected (${ENDPOINTS} per answered PATCH), worst round`,
      faults(worstDelivery),
      `${w.each.length} of ${w.expected}, ${w.duplicates} twice, ${w.notDelivered} attempts failed`,
      { atMost: 0, text: 'all, once each' },
    ),
  ];
  const refineRatio = (r: Round) => r.hookedRefine.cpuUs / r.plainRefine.cpuUs;
  const refineRound = medianRound(rounds, refineRatio);
  const refineP99 = (r: Round) => r.hookedRefine.p99 - r.plainRefine.p99;
  rows.push(
    info(SCENARIO, `POST /v1/refine at ${perSecond(RATE)}, no webhook endpoint`, latency(refineRound.plainRefine)),
    info(SCENARIO, `POST /v1/refine at ${perSecond(RATE)}, ${ENDPOINTS} endpoints (a refine writes no event)`, latency(refineRound.hookedRefine)),
    // Nothing on a refine's path changes; the target is this machine's round-to-round noise.
    judged(SCENARIO, `CPU per refine, ${ENDPOINTS} endpoints ÷ none${of}`, refineRatio(refineRound), `${refineRatio(refineRound).toFixed(2)}× (${cpu(refineRound.hookedRefine.cpuUs)} vs ${cpu(refineRound.plainRefine.cpuUs)})`, { atMost: 1.1, text: '≤ 1.1×' }),
    info(SCENARIO, `p99 a refine's ${ENDPOINTS} endpoints add${of}`, signed(refineP99(medianRound(rounds, refineP99)))),
  );
  const lateStart = Math.max(...rounds.flatMap((r) => [r.plain.latency, r.hooked.latency, r.plainRefine, r.hookedRefine].map((l) => l.lateStartP99)));
  return {
    rows,
    notes: [
      `Webhooks: PATCH open loop at ${perSecond(RATE)} over ${SOCKETS} keep-alive sockets, ${s.seconds} s a run, alternating without and with ${ENDPOINTS} endpoints in one service (WEBHOOK_ALLOWED_HOSTS=127.0.0.1); the receiver answers 204 at once. Service CPU is counted from the first PATCH until every delivery is recorded. Answer and arrival times are performance.timeOrigin + performance.now() in the load generator and the receiver. Each round also sends refines (Idempotency-Key each, the fake provider answering at once) at the same rate, without and then with the endpoints, once their deliveries are done; after the rounds, one run of PATCHes at ${perSecond(LIGHT_RATE)} with the endpoints.`,
      ...(lateStart > 2 ? [`Webhooks: the load generator started requests up to ${ms(lateStart)} late (p99): the machine was busy.`] : []),
    ],
  };
}
