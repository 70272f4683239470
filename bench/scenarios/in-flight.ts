/**
 * Many refines in flight: N concurrent refines, each on its own connection, against a
 * fake provider that takes seconds to answer. All must succeed and the service's memory
 * (whole process tree, sampled every 100 ms) must stay bounded.
 */
import { API_KEY, JSON_AUTH, REFINE_PERSONA, freshSqlite, refineBody, seedPersonas } from '../fixtures.js';
import { burst } from '../load.js';
import { ensureAlive, sampleRss, startFakeProvider, startService, treeRssBytes } from '../processes.js';
import { type ScenarioResult, cpu, info, judged, mb } from '../report.js';
import type { Settings } from '../settings.js';

const SCENARIO = 'Many in flight';

/** Highest `refines_in_flight` gauge value the service reported while we polled /metrics. */
function pollInFlight(serviceUrl: string): { stop(): number } {
  let peak = 0;
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    fetch(`${serviceUrl}/metrics`)
      .then((response) => response.text())
      .then((text) => {
        const value = Number(/^refines_in_flight(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
        peak = Math.max(peak, value);
      })
      .catch(() => {})
      .finally(() => (polling = false));
  }, 250);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export async function inFlight(s: Settings): Promise<ScenarioResult> {
  const fake = await startFakeProvider(s.inFlightLatencyMs);
  const database = freshSqlite();
  try {
    const service = await startService({
      name: 'in-flight',
      databaseUrl: database.url,
      apiKey: API_KEY,
      env: {
        PROVIDER_BASE_URL_OPENAI: `${fake.url}/openai/v1`,
        // The default per-account cap (256) would rightly answer 429 to most of this burst.
        MAX_CONCURRENT_REFINES_PER_ACCOUNT: '5000',
      },
    });
    try {
      const [personaId] = await seedPersonas(service.url, 1, REFINE_PERSONA);
      const idleRss = treeRssBytes(service.pid);
      const rss = sampleRss(service.pid, 100);
      const gauge = pollInFlight(service.url);
      const result = await burst(
        { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body: refineBody(personaId!), pid: service.pid },
        s.inFlight,
        Math.ceil(s.inFlightLatencyMs / 1000) + 30,
      );
      const peakInFlight = gauge.stop();
      ensureAlive(fake, service);
      const peakRss = rss.stop();
      const codes = Object.entries(result.statusCodes).map(([code, n]) => `${code}×${n}`).join(', ');
      return {
        rows: [
          judged(SCENARIO, `${s.inFlight} concurrent refines, provider answers in ${s.inFlightLatencyMs / 1000} s: succeeded`, result.ok, `${result.ok} / ${s.inFlight}${result.failed ? ` (${codes}, ${result.failed} failed)` : ''}`, { atLeast: s.inFlight, text: 'all succeed' }),
          judged(SCENARIO, 'peak RSS of the service during the burst', peakRss, mb(peakRss), { atMost: 300 * 1024 * 1024, text: '≤ 300 MB' }),
          info(SCENARIO, 'RSS when idle, before the burst', mb(idleRss)),
          info(SCENARIO, 'peak refines_in_flight (from /metrics)', String(peakInFlight)),
          info(SCENARIO, 'wall time for the whole burst', `${result.seconds.toFixed(1)} s`),
          info(SCENARIO, 'service CPU per refine during the burst', cpu(result.cpuUs)),
        ],
        notes: [`Many in flight ran with MAX_CONCURRENT_REFINES_PER_ACCOUNT=5000 (default 256) so the per-account cap does not reject the burst; ${s.inFlight} client connections were opened at once (autocannon, one request per connection).`],
      };
    } finally {
      await service.stop();
    }
  } finally {
    await fake.stop();
    await database.drop();
  }
}
