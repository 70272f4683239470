/**
 * Time to the first shown text of a streamed refine against the provider's own time to first
 * token: the fake streams a token-sized piece every 20 ms (about 50 tokens a second, a
 * typical model's pace); streams start open loop at a modest rate, each on a keep-alive pool,
 * and each is timed from issue to the first text event — `response.output_text.delta` called
 * directly, `delta` through the service. The difference is what the service adds, most of it
 * what the stream's fixes hold back until no continuation can change it.
 */
import { Agent, request } from 'node:http';
import { CONTENT, JSON_AUTH, PLAIN_PERSONA, PROVIDER_KEY, seedPersonas } from '../fixtures.js';
import { median, medianRound, percentile } from '../load.js';
import { ensureAlive, startFakeProvider } from '../processes.js';
import { type Row, type ScenarioResult, info, judged, ms } from '../report.js';
import type { Settings } from '../settings.js';
import { captureProviderRequest, withService } from './refine.js';

/**
 * A persona whose rules only check (avoid and the length limits, judged on the whole answer at
 * the end; preserve as every persona has it): nothing it holds back can change, so each piece is
 * shown as it arrives (docs/streaming.md). Round 4 judges its first text (issue 41).
 */
const CHECKS_PERSONA = { name: 'Checks only', attributes: { tone: 'warm, direct', avoid: ['synergy', 'leverage'], maxWords: 400, maxSentences: 40 } };

const SCENARIO = 'First text (streams)';
const RATE = 20;
const PIECE_CHARS = 4;
const PIECE_DELAY_MS = 20;

interface Timing {
  p50: number;
  p99: number;
  failed: number;
}

/** Starts `rate` streams a second for `seconds`; each resolves with the ms to the first chunk holding `marker`. */
async function firstText(url: string, headers: Record<string, string>, body: string, marker: string, rate: number, seconds: number): Promise<Timing> {
  const agent = new Agent({ keepAlive: true, maxSockets: 200 });
  const target = new URL(url);
  const payload = Buffer.from(body);
  const one = () =>
    new Promise<number>((resolve) => {
      const started = performance.now();
      const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, timeout: 30_000, headers: { ...headers, 'content-length': String(payload.length) } }, (res) => {
        let seen = '';
        let first = Number.NaN;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (Number.isNaN(first)) {
            seen = (seen + chunk).slice(-200);
            if (seen.includes(marker)) first = performance.now() - started;
          }
        });
        res.on('end', () => resolve(res.statusCode === 200 ? first : Number.NaN));
        res.on('error', () => resolve(Number.NaN));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(Number.NaN));
      req.end(payload);
    });
  const pending: Promise<number>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one());
  }
  const times = await Promise.all(pending);
  agent.destroy();
  const ok = Float64Array.from(times.filter((t) => Number.isFinite(t))).sort();
  return { p50: percentile(ok, 50), p99: percentile(ok, 99), failed: times.length - ok.length };
}

export async function firstTextScenario(s: Settings): Promise<ScenarioResult> {
  const captured = await captureProviderRequest();
  const fake = await startFakeProvider(0, { mode: 'ok', reply: CONTENT, pieceChars: PIECE_CHARS, pieceDelayMs: PIECE_DELAY_MS, wholeEvents: true });
  try {
    return await withService('first-text', fake.url, async (service, rulesPersonaId) => {
      const [plainPersonaId] = await seedPersonas(service.url, 1, PLAIN_PERSONA);
      const [checksPersonaId] = await seedPersonas(service.url, 1, CHECKS_PERSONA);
      const streamBody = (personaId: string) => JSON.stringify({ provider: 'openai', providerApiKey: PROVIDER_KEY, personaId, content: CONTENT, stream: true });
      const direct = () =>
        firstText(`${fake.url}${captured.path}`, { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_KEY}` }, JSON.stringify({ ...JSON.parse(captured.body), stream: true }), 'output_text.delta', RATE, s.seconds);
      const through = (personaId: string) => firstText(`${service.url}/v1/refine`, JSON_AUTH, streamBody(personaId), 'event: delta', RATE, s.seconds);
      if (s.warmupSeconds > 0) await through(plainPersonaId!);
      const rounds: { direct: Timing; plain: Timing; checks: Timing; rules: Timing }[] = [];
      for (let i = 0; i < s.runs; i++) {
        rounds.push({ direct: await direct(), plain: await through(plainPersonaId!), checks: await through(checksPersonaId!), rules: await through(rulesPersonaId) });
        ensureAlive(fake, service);
      }
      const of = s.runs > 1 ? `, median of ${s.runs}` : '';
      const typical = medianRound(rounds, (r) => r.plain.p99 - r.direct.p99);
      const added = typical.plain.p99 - typical.direct.p99;
      const checksRound = medianRound(rounds, (r) => r.checks.p99 - r.direct.p99);
      const checksAdded = checksRound.checks.p99 - checksRound.direct.p99;
      const show = (t: Timing) => `p50 ${ms(t.p50)}, p99 ${ms(t.p99)}${t.failed ? `, ${t.failed} failed` : ''}`;
      const rows: Row[] = [
        info(SCENARIO, "provider's time to first token (the fake, called directly)", show(typical.direct)),
        info(SCENARIO, 'time to first shown text, persona without rules', show(typical.plain)),
        judged(SCENARIO, `first shown text − provider's first token at p99, persona without rules${of}`, added, `+${ms(added)}`, { atMost: 5, text: '≤ +5 ms' }),
        info(SCENARIO, 'time to first shown text, persona whose rules only check (avoid, maxWords, maxSentences)', show(checksRound.checks)),
        judged(SCENARIO, `first shown text − provider's first token at p99, persona whose rules only check${of}`, checksAdded, `+${ms(checksAdded)}`, { atMost: 2, text: '≤ +2 ms' }),
        info(SCENARIO, 'time to first shown text, persona with rules (vocabulary, avoid, sign-off)', show(typical.rules)),
        info(SCENARIO, `what holding back costs at p50: without rules, with rules${of}`, `+${ms(median(rounds.map((r) => r.plain.p50 - r.direct.p50)))}, +${ms(median(rounds.map((r) => r.rules.p50 - r.direct.p50)))}`),
      ];
      return {
        rows,
        notes: [`First text: ${RATE} streams a second for ${s.seconds} s per run; the fake streams ${PIECE_CHARS}-character pieces every ${PIECE_DELAY_MS} ms (OpenAI Responses events, one write each).`],
      };
    });
  } finally {
    await fake.stop();
  }
}
